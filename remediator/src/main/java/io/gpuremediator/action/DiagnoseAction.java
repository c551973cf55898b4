package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.RepairStepSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Stage;
import io.gpuremediator.verdict.DcgmDiagVerdict;
import io.gpuremediator.verdict.Rung;
import io.gpuremediator.verdict.Verdict;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code diagnose: {image, command, timeout, on_fail, on_verdict}}: a long step, a diagnostic Job pinned to the node. Its name
 * follows from the episode, the step and the attempt ({@link EpisodeNames#jobName}), so creating it twice finds the
 * same Job: one Job per diagnose step. It passes only when the Job completes; a Job that fails, times out, or is gone
 * (deleted, or lost with its node) fails the step, which escalates to {@code on_fail} when it names a playbook. After a
 * {@code fence_gpu} the Job sees the fenced GPUs only ({@code NVIDIA_VISIBLE_DEVICES}, and {@code {{ gpus }}} in the
 * command), and starts once no pod holds them ({@link FencedGpus}). A failed Job whose log is a DCGM diagnostic document
 * ({@code dcgmi diag -j}) is read for its verdict ({@link DcgmDiagVerdict}): {@code on_verdict: {reset_gpu, reboot,
 * service}} names the playbook each rung escalates to, and a rung it does not name, or a log with no verdict, takes
 * {@code on_fail}. The decision names the verdict and each failure DCGM reported.
 */
public final class DiagnoseAction extends BackgroundKind<DiagnoseAction.DiagnoseSpec> {
  /**
   * Runs a diagnostic Job pinned to the node; passes when the Job completes.
   *
   * @param onFail the playbook an episode escalates to when diagnostics fail; empty: stay out for a human
   */
  public record DiagnoseSpec(String image, List<String> command, Duration timeout,
      Optional<String> onFail, Map<Rung, String> onVerdict, boolean dryRun) implements RepairStepSpec {
    /** Copies the command and the verdicts' playbooks. */
    public DiagnoseSpec {
      command = List.copyOf(command);
      EnumMap<Rung, String> rungs = new EnumMap<>(Rung.class);
      rungs.putAll(onVerdict);
      onVerdict = Collections.unmodifiableMap(rungs);
    }

    /** A diagnose without {@code on_verdict}: every failure takes {@code on_fail}. */
    public DiagnoseSpec(String image, List<String> command, Duration timeout, Optional<String> onFail, boolean dryRun) {
      this(image, command, timeout, onFail, Map.of(), dryRun);
    }

    @Override
    public List<String> escalationTargets() {
      return Stream.concat(onFail.stream(), onVerdict.values().stream()).distinct().toList();
    }

    @Override
    public boolean provesHealthy() {
      return true;
    }
  }

  private static final Duration MAX_TIMEOUT = Duration.ofDays(7);
  private static final StepStages STAGES = new StepStages(Stage.DIAGNOSING, Optional.empty(), Stage.DIAGNOSTICS_FAILED,
      Reason.DIAGNOSE_STARTED, Reason.DIAGNOSTICS_PASSED, Reason.DIAGNOSTICS_FAILED);

  DiagnoseAction() {
    super(DiagnoseSpec.class, Set.of(Phase.FIRING, Phase.RESOLVED), STAGES);
  }

  @Override
  public Optional<DiagnoseSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> image = PinnedJobs.image(params, name(), Optional.empty());
    Optional<List<String>> command = PinnedJobs.command(params, name(), Optional.empty());
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(30), MAX_TIMEOUT, name());
    Optional<String> onFail = ActionParams.onFail(params, name());
    Optional<Map<Rung, String>> onVerdict = onVerdict(params);
    if (image.isEmpty() || command.isEmpty() || timeout.isEmpty() || ActionParams.onFailInvalid(params, onFail)
        || onVerdict.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new DiagnoseSpec(image.get(), command.get(), timeout.get(), onFail, onVerdict.get(), dryRun));
  }

  /** {@code on_verdict: {reset_gpu: PLAYBOOK, reboot: PLAYBOOK, service: PLAYBOOK}}, each optional; empty when invalid. */
  private Optional<Map<Rung, String>> onVerdict(MapReader params) {
    Map<Rung, String> out = new EnumMap<>(Rung.class);
    if (!params.has("on_verdict")) {
      return Optional.of(out);
    }
    Optional<MapReader> m = params.map("on_verdict", name() + " action's on_verdict");
    if (m.isEmpty()) {
      return Optional.empty();
    }
    int before = params.problems().messages().size();
    for (Rung r : Rung.values()) {
      ActionParams.playbookName(m.get(), r.code(), name()).ifPresent(p -> out.put(r, p));
    }
    m.get().finish();
    return params.problems().messages().size() == before ? Optional.of(out) : Optional.empty();
  }

  /** Applied to a draft it only says what will happen; the episode engine runs the Job in the background. */
  @Override
  public PreparedAction prepare(DiagnoseSpec spec, TemplateContext ctx) {
    return PinnedJobs.planned(name(), "Job", spec.image(), spec.command(), ctx.node(), spec.timeout(), spec.onFail());
  }

  @Override
  public StepStart start(LongStepRun<DiagnoseSpec> run) throws ClusterException {
    return FencedGpus.waitWhileHeld(run, "the diagnostic").orElse(new StepStart.Go("creating the diagnostic job",
        Optional.empty()));
  }

  @Override
  public boolean retriesThroughStart() {
    return false;
  }

  @Override
  public StepResult look(LongStepRun<DiagnoseSpec> run) throws ClusterException {
    DiagnoseSpec spec = run.spec();
    String fenced = FencedGpus.uuids(run);
    List<String> command = fenced.isEmpty() ? spec.command() : GpuResetAction.withGpus(spec.command(), fenced);
    StepResult result = PinnedJobs.createOrLook(run, new PinnedJobs.Shape("diagnostic job", "gpu-diag-", name(),
        spec.image(), command, fenced.isEmpty() ? Map.of() : Map.of("NVIDIA_VISIBLE_DEVICES", fenced), spec.timeout(), false,
        false), Reason.DIAGNOSTICS_FAILED);
    return result instanceof StepResult.Failed f && !spec.onVerdict().isEmpty() ? withVerdict(run, f) : result;
  }

  /** A failure whose Job's log gives a verdict: escalated where on_verdict says for its rung, the decision naming it. */
  private static StepResult withVerdict(LongStepRun<DiagnoseSpec> run, StepResult.Failed f) throws ClusterException {
    Optional<Verdict> verdict = PinnedJobs.document(run).flatMap(DcgmDiagVerdict::of);
    if (verdict.isEmpty()) {
      return new StepResult.Failed(f.reason(), f.note() + "; no verdict in its log: " + ActionParams.onFailure(
          run.spec().onFail()));
    }
    Optional<String> to = Optional.ofNullable(run.spec().onVerdict().get(verdict.get().rung()));
    return new StepResult.Failed(f.reason(), f.note() + "; " + verdict.get().describe() + ": " + to.map(p -> "on_verdict "
        + verdict.get().rung().code() + " escalates to " + p).orElse("on_verdict names no playbook for "
        + verdict.get().rung().code() + ", so " + ActionParams.onFailure(run.spec().onFail())), to);
  }
}
