package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.RepairStepSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Stage;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code diagnose: {image, command, timeout, on_fail}}: a long step, a diagnostic Job pinned to the node. Its name
 * follows from the episode, the step and the attempt ({@link EpisodeNames#jobName}), so creating it twice finds the
 * same Job: one Job per diagnose step. It passes only when the Job completes; a Job that fails, times out, or is gone
 * (deleted, or lost with its node) fails the step, which escalates to {@code on_fail} when it names a playbook. After a
 * {@code fence_gpu} the Job sees the fenced GPUs only ({@code NVIDIA_VISIBLE_DEVICES}, and {@code {{ gpus }}} in the
 * command), and starts once no pod holds them ({@link FencedGpus}).
 */
public final class DiagnoseAction extends BackgroundKind<DiagnoseAction.DiagnoseSpec> {
  /**
   * Runs a diagnostic Job pinned to the node; passes when the Job completes.
   *
   * @param onFail the playbook an episode escalates to when diagnostics fail; empty: stay out for a human
   */
  public record DiagnoseSpec(String image, List<String> command, Duration timeout,
      Optional<String> onFail, boolean dryRun) implements RepairStepSpec {
    /** Copies the command. */
    public DiagnoseSpec {
      command = List.copyOf(command);
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
    if (image.isEmpty() || command.isEmpty() || timeout.isEmpty() || ActionParams.onFailInvalid(params, onFail)) {
      return Optional.empty();
    }
    return Optional.of(new DiagnoseSpec(image.get(), command.get(), timeout.get(), onFail, dryRun));
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
    return PinnedJobs.createOrLook(run, new PinnedJobs.Shape("diagnostic job", "gpu-diag-", name(), spec.image(),
        command, fenced.isEmpty() ? Map.of() : Map.of("NVIDIA_VISIBLE_DEVICES", fenced), spec.timeout(), false, false),
        Reason.DIAGNOSTICS_FAILED);
  }
}
