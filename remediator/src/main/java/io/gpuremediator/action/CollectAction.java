package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.LongStepSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code collect: {image, command, timeout, keep}}: evidence before destruction. A Job pinned to the node gathers what
 * support asks for (an {@code nvidia-bug-report}) into its pod's log; the step passes once the Job exists, so the drain
 * after it runs beside it and is never delayed. A {@code reboot} or {@code replace} of the episode waits for it to
 * finish or time out ({@link Evidence}). The Job runs privileged in the host's PID namespace, as the reboot Job does, with
 * {@code NVIDIA_VISIBLE_DEVICES=all} (the NVIDIA runtime mounts the driver's tools), so the report reaches the driver;
 * our namespace is one a drain leaves alone. It is kept {@code keep} after it finished
 * (ttlSecondsAfterFinished), its log with it. Its name follows from the episode, the playbook and the step
 * ({@link EpisodeNames#evidenceJobName}): created twice, it is found, never doubled. It never fails the episode: a Job
 * that fails or times out is named as such, and the repair goes on.
 */
public final class CollectAction extends BackgroundKind<CollectAction.CollectSpec> {
  /**
   * Gathers evidence on the node beside the drain.
   *
   * @param timeout the Job's activeDeadlineSeconds, and the longest a reboot or replacement waits for it
   * @param keep how long the finished Job and its pod's log stay
   */
  public record CollectSpec(String image, List<String> command, Duration timeout, Duration keep, boolean dryRun)
      implements LongStepSpec {
    /** Copies the command. */
    public CollectSpec {
      command = List.copyOf(command);
    }

    @Override
    public Optional<Duration> evidenceTimeout() {
      return Optional.of(timeout);
    }
  }

  private static final Duration MAX_TIMEOUT = Duration.ofHours(2);
  private static final Duration MAX_KEEP = Duration.ofDays(30);
  private static final StepStages STAGES = new StepStages(Stage.QUARANTINED, Optional.empty(), Stage.NEEDS_HUMAN,
      Reason.COLLECT_STARTED, Reason.COLLECT_STARTED, Reason.COLLECT_STARTED);

  CollectAction() {
    super(CollectSpec.class, Set.of(Phase.FIRING), STAGES);
  }

  @Override
  public Optional<CollectSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> image = PinnedJobs.image(params, name(), Optional.empty());
    Optional<List<String>> command = PinnedJobs.command(params, name(), Optional.empty());
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(10), MAX_TIMEOUT, name());
    Optional<Duration> keep = ActionParams.duration(params, "keep", Duration.ofDays(7), MAX_KEEP, name());
    if (image.isEmpty() || command.isEmpty() || timeout.isEmpty() || keep.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new CollectSpec(image.get(), command.get(), timeout.get(), keep.get(), dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine creates the Job in the background. */
  @Override
  public Step prepare(CollectSpec spec, TemplateContext ctx) {
    String what = "run " + String.join(" ", spec.command()) + " (" + spec.image() + ") as an evidence Job on " + ctx.node()
        + " beside the drain (timeout " + Durations.format(spec.timeout()) + ", kept " + Durations.format(spec.keep())
        + "); a reboot or replacement waits for it";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
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
    PinnedJobs.create(run, new PinnedJobs.Shape("evidence job", "", name(), spec.image(), spec.command(),
        Map.of("NVIDIA_VISIBLE_DEVICES", "all"), spec.timeout(), true, true, spec.keep()), name);
    String job = run.ports().jobNamespace() + "/" + name;
    return new StepResult.Succeeded("evidence job " + job + " created on " + run.node() + " (" + String.join(" ",
        spec.command()) + "), kept " + Durations.format(spec.keep()) + "; the drain goes on beside it, a reboot or"
        + " replacement waits for it", new StepResult.Kept.EvidenceJob(job));
  }
}
