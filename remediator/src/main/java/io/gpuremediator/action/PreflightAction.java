package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.RepairStepSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pre-flight gate's step: the same kind of Job as {@code diagnose}, pinned to a new node that registered with the
 * pre-flight taint, at most {@code preflight.max_concurrent} at once. Passing proves the node healthy (the gate's
 * playbook then removes the taint); failing keeps the taint and escalates to {@code on_fail}. Never written in a
 * playbook: the service builds it from {@code preflight} in its config.
 */
public final class PreflightAction extends BackgroundKind<PreflightAction.PreflightSpec> {
  /**
   * Runs a pre-flight Job pinned to the node; passes when the Job completes.
   *
   * @param onFail the playbook a failure escalates to; empty: stage preflight_failed, a human decides
   */
  public record PreflightSpec(String image, List<String> command, Duration timeout, Optional<String> onFail,
      boolean dryRun) implements RepairStepSpec {
    /** Copies the command. */
    public PreflightSpec {
      command = List.copyOf(command);
    }

    @Override
    public boolean provesHealthy() {
      return true;
    }

    /** The gate keeps the node out of service (by its taint) until the Job passes. */
    @Override
    public boolean takesNodeOutOfService() {
      return true;
    }
  }

  private static final StepStages STAGES = new StepStages(Stage.PREFLIGHT, Optional.empty(), Stage.PREFLIGHT_FAILED,
      Reason.PREFLIGHT_STARTED, Reason.PREFLIGHT_PASSED, Reason.PREFLIGHT_FAILED);

  PreflightAction() {
    super(PreflightSpec.class, Set.of(Phase.FIRING), STAGES);
  }

  /** Whether the episode holds a pre-flight slot: its pre-flight step has started. */
  public static boolean holdsSlot(Episode e) {
    return e.progress().task().map(t -> t.kind().equals(ActionSpec.kindOf(PreflightSpec.class))).orElse(false);
  }

  @Override
  public boolean inPlaybooks() {
    return false;
  }

  /** Refused in a playbook: the gate's own step is configured under {@code preflight} in the service config. */
  @Override
  public Optional<PreflightSpec> decode(MapReader params, boolean dryRun) {
    params.keys().forEach(params::take); // one message for the step, none per key
    params.problems().add(params.node(), "preflight is the pre-flight gate's own step, configured under preflight in the"
        + " service config; a playbook runs diagnose");
    return Optional.empty();
  }

  @Override
  public PreparedAction prepare(PreflightSpec spec, TemplateContext ctx) {
    return PinnedJobs.planned(name(), "pre-flight Job", spec.image(), spec.command(), ctx.node(), spec.timeout(), spec.onFail());
  }

  /** Takes a pre-flight slot; none free: the node waits, keeping its taint. */
  @Override
  public StepStart start(LongStepRun<PreflightSpec> run) {
    StepPorts ports = run.ports();
    Optional<Refusal> full = ports.limits().preflights().take(run.node(), "", run.now());
    if (full.isPresent()) {
      return new StepStart.Wait(full.get().reason(), "waiting for a pre-flight slot: " + full.get().detail(), false);
    }
    return new StepStart.Go("creating the pre-flight job", Optional.empty());
  }

  @Override
  public void cancel(String node, StepPorts ports) {
    ports.limits().preflights().release(node);
  }

  /** A node deleted while its Job runs ends the episode ({@code node_deleted}) rather than failing the Job. */
  @Override
  public WhenNodeGone whenNodeGone() {
    return WhenNodeGone.ENDS_EPISODE;
  }

  @Override
  public Optional<Reason> escalationReason() {
    return Optional.of(Reason.PREFLIGHT_FAILED);
  }

  @Override
  public StepResult look(LongStepRun<PreflightSpec> run) throws ClusterException {
    PreflightSpec spec = run.spec();
    return PinnedJobs.createOrLook(run, new PinnedJobs.Shape("pre-flight job", "gpu-preflight-", name(), spec.image(),
        spec.command(), Map.of(), spec.timeout(), false, false), Reason.PREFLIGHT_FAILED);
  }
}
