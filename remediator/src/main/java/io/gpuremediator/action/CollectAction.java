package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.playbook.LongStepSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.EvidenceJob;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import io.gpuremediator.workload.JobVolume;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code collect: {image, command, timeout, keep, store}}: evidence before destruction. A Job pinned to the node gathers
 * what support asks for (an {@code nvidia-bug-report}); the step passes once the Job exists, so the drain after it runs
 * beside it and is never delayed. A {@code reboot} or {@code replace} of the episode waits for it to finish or time out,
 * and for its report to be stored ({@link Evidence}). The Job runs privileged in the host's PID namespace, as the reboot
 * Job does, with {@code NVIDIA_VISIBLE_DEVICES=all}; our namespace is one a drain leaves alone. It is kept {@code keep}
 * after it finished (ttlSecondsAfterFinished), its log with it. Its name follows from the episode, the playbook and the
 * step ({@link EpisodeNames#evidenceJobName}): created twice, it is found, never doubled. It never fails the episode: a
 * Job that fails or times out is named as such, and the repair goes on.
 *
 * <p>Without a {@code command}, the Job runs {@value #SCRIPT} ({@link #DEFAULT_SCRIPT}) with the node's root mounted at
 * {@value #HOST_ROOT}: no image holds {@code nvidia-bug-report.sh} (the NVIDIA runtime injects nvidia-smi,
 * nvidia-debugdump and nvidia-persistenced only), so the script runs the node's own, from the GPU Operator's driver
 * root or the host's. With {@code store: {pvc}} the claim is mounted at {@value EvidenceStore#MOUNT} and
 * {@code EVIDENCE_FILE} names the file the report goes to.
 */
public final class CollectAction extends BackgroundKind<CollectAction.CollectSpec> {
  /**
   * Gathers evidence on the node beside the drain.
   *
   * @param defaultCommand whether {@code command} is the shipped script (which reads the node's root)
   * @param timeout the Job's activeDeadlineSeconds, and the longest a reboot or replacement waits for it
   * @param keep how long the finished Job and its pod's log stay
   */
  public record CollectSpec(String image, List<String> command, boolean defaultCommand, Duration timeout, Duration keep,
      Optional<EvidenceStore> store, boolean dryRun) implements LongStepSpec {
    /** Copies the command. */
    public CollectSpec {
      command = List.copyOf(command);
    }

    @Override
    public Optional<Duration> evidenceTimeout() {
      return Optional.of(timeout);
    }

    @Override
    public Optional<EvidenceStore> evidenceStore() {
      return store;
    }
  }

  static final String SCRIPT = "collect-evidence.sh";
  /** The default command's script: finds nvidia-bug-report.sh on the node, writes the gzipped report. */
  static final String DEFAULT_SCRIPT = ShippedScripts.read(SCRIPT);
  /** Where the default command sees the node's root. */
  static final String HOST_ROOT = "/host";
  private static final Duration MAX_TIMEOUT = Duration.ofHours(2);
  private static final Duration MAX_KEEP = Duration.ofDays(30);
  private static final StepStages STAGES = new StepStages(Stage.QUARANTINED, Optional.empty(), Stage.NEEDS_HUMAN,
      Reason.COLLECT_STARTED, Reason.COLLECT_STARTED, Reason.COLLECT_STARTED);

  CollectAction() {
    super(CollectSpec.class, Set.of(Phase.FIRING), STAGES);
  }

  @Override
  public Optional<CollectSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> image = PinnedJobs.image(params, name(), Optional.of(GpuResetAction.DEFAULT_IMAGE));
    boolean own = params.has("command");
    Optional<List<String>> command = PinnedJobs.command(params, name(),
        Optional.of(List.of("sh", "-c", DEFAULT_SCRIPT, SCRIPT)));
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(10), MAX_TIMEOUT, name());
    Optional<Duration> keep = ActionParams.duration(params, "keep", Duration.ofDays(7), MAX_KEEP, name());
    Optional<Optional<EvidenceStore>> store = EvidenceStore.decode(params, name());
    if (image.isEmpty() || command.isEmpty() || timeout.isEmpty() || keep.isEmpty() || store.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new CollectSpec(image.get(), command.get(), !own, timeout.get(), keep.get(), store.get(), dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine creates the Job in the background. */
  @Override
  public PreparedAction prepare(CollectSpec spec, TemplateContext ctx) {
    String what = "run " + shown(spec) + " (" + spec.image() + ") as an evidence Job on " + ctx.node()
        + " beside the drain (timeout " + Durations.format(spec.timeout()) + ", kept " + Durations.format(spec.keep())
        + ")" + spec.store().map(s -> "; its report stored under " + s.under(ctx.node())).orElse("")
        + "; a reboot or replacement waits for it";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  /** How notes show the command: the shipped script by its name. */
  static String shown(CollectSpec spec) {
    return spec.defaultCommand() ? SCRIPT + ": the node's own nvidia-bug-report.sh" : String.join(" ", spec.command());
  }

  @Override
  public StepStart start(LongStepRun<CollectSpec> run) {
    return new StepStart.Go("collecting evidence on " + run.node(), Optional.empty());
  }

  /** Creates the Job (found when it exists) and passes: what waits for it is the reboot or the replacement. */
  @Override
  public StepResult look(LongStepRun<CollectSpec> run) throws ClusterException {
    CollectSpec spec = run.spec();
    String name = EpisodeNames.evidenceJobName(run.node(), run.episode(), run.task().step());
    Map<String, String> env = new TreeMap<>(Map.of("NVIDIA_VISIBLE_DEVICES", "all"));
    List<JobVolume> volumes = new ArrayList<>();
    if (spec.defaultCommand()) {
      env.put("HOST_ROOT", HOST_ROOT);
      volumes.add(new JobVolume.HostPath("host-root", HOST_ROOT, "/"));
    }
    Optional<EvidenceStore> store = run.ports().evidenceStoreOf(spec);
    if (store.orElse(null) instanceof EvidenceStore.Pvc pvc) {
      env.put("EVIDENCE_FILE", EvidenceStore.MOUNT + "/" + EvidenceStore.object(run.node(), name));
      volumes.add(new JobVolume.Claim("evidence", EvidenceStore.MOUNT, pvc.claim()));
    }
    PinnedJobs.create(run, new PinnedJobs.Shape("evidence job", "", name(), spec.image(), spec.command(), env,
        spec.timeout(), true, true, spec.keep(), volumes), name);
    String job = run.ports().jobNamespace() + "/" + name;
    return new StepResult.Succeeded("evidence job " + job + " created on " + run.node() + " (" + shown(spec) + "), kept "
        + Durations.format(spec.keep()) + store.map(s -> ", its report to be stored at " + s.where(run.node(), name))
        .orElse("") + "; the drain goes on beside it, a reboot or replacement waits for it",
        new StepResult.Kept.Holds(new EvidenceJob(job, store.map(s -> s.where(run.node(), name)).orElse("")).held()));
  }
}
