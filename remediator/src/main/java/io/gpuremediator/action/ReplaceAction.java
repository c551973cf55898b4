package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.ProviderId;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * {@code replace: {provider: aws, timeout}}: a long step that has the node's cloud instance replaced. The providerID
 * read fresh from the API names the instance (another cloud, or none, is refused before anything is called); the
 * fleet's replacement budget admits it; the instance is marked Unhealthy in its Auto Scaling group, which terminates
 * and replaces it; the step ends when the Node object is gone. The task's handle is empty until the instance is
 * marked, then its id: a restart before the mark was recorded marks again, and the port's look-up first finds it
 * already unhealthy, so one episode sends one SetInstanceHealth.
 */
public final class ReplaceAction implements ActionKind<ReplaceAction.ReplaceSpec>,
    LongStep<ReplaceAction.ReplaceSpec> {
  /**
   * Has the node's cloud instance replaced: AWS Auto Scaling {@code SetInstanceHealth(Unhealthy)} for the node's
   * providerID; the step ends when the Node object is gone, or fails at {@code timeout}.
   */
  public record ReplaceSpec(String provider, Duration timeout, boolean dryRun) implements ActionSpec {
    @Override
    public Optional<Needs> needs() {
      return Optional.of(new Needs(Port.CLOUD, provider));
    }

    @Override
    public boolean isLongStep() {
      return true;
    }
  }

  private static final StepStages STAGES = new StepStages(Stage.REPLACING, Optional.empty(), Stage.NEEDS_HUMAN,
      Reason.REPLACE_STARTED, Reason.REPLACED, Reason.REPLACE_FAILED);

  ReplaceAction() {}

  @Override
  public Class<ReplaceSpec> specType() {
    return ReplaceSpec.class;
  }

  @Override
  public Set<Phase> phases() {
    return Set.of(Phase.FIRING, Phase.RESOLVED);
  }

  @Override
  public Optional<ReplaceSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> provider = params.requiredString("provider").filter(p -> {
      if (!p.equals("aws")) {
        params.problems().add(params.at("provider"), "replace action: \"provider\" must be aws, not \"" + p + "\"");
        return false;
      }
      return true;
    });
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(30), Duration.ofHours(24), name());
    if (provider.isEmpty() || timeout.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new ReplaceSpec(provider.get(), timeout.get(), dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine marks the instance in the background. */
  @Override
  public Step prepare(ReplaceSpec spec, TemplateContext ctx) {
    String what = "replace " + ctx.node() + ": mark its " + spec.provider() + " instance Unhealthy in its Auto Scaling group"
        + " (SetInstanceHealth, grace period respected), then wait up to " + Durations.format(spec.timeout())
        + " for the Node object to go";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  @Override
  public Optional<LongStep<ReplaceSpec>> longStep() {
    return Optional.of(this);
  }

  @Override
  public StepStages stages() {
    return STAGES;
  }

  @Override
  public boolean endsWithTheNode() {
    return true;
  }

  /** Reads the node's instance and asks the fleet's budget; nothing outside is called when it cannot be replaced. */
  @Override
  public StepStart start(LongStepRun<ReplaceSpec> run) throws ClusterException {
    String node = run.node();
    if (run.ports().outside().instances() == InstanceHealth.NOT_CONFIGURED) {
      return new StepStart.Impossible(Reason.REPLACE_FAILED, "cannot replace " + node + ": no cloud is configured"
          + " (cloud.aws in the service config); nothing was called");
    }
    ProviderId id = ProviderId.parse(run.ports().cluster().providerId(node).orElse(null));
    if (id instanceof ProviderId.Unsupported u) {
      return new StepStart.Impossible(Reason.PROVIDER_UNSUPPORTED, "cannot replace " + node + ": its providerID is "
          + u.seen() + "; nothing was called");
    }
    Optional<Refusal> no = run.ports().outside().replaceBudget().admit(node);
    if (no.isPresent()) {
      return new StepStart.Wait(no.get().reason(), "waiting to replace: " + no.get().detail(), false);
    }
    return new StepStart.Go("marking instance " + ((ProviderId.Aws) id).instanceId() + " unhealthy", Optional.empty());
  }

  /** Marks the instance unhealthy (once), then waits for the Node object to go, or times out. */
  @Override
  public StepResult look(LongStepRun<ReplaceSpec> run) throws ClusterException {
    if (run.task().handle().isEmpty()) {
      return mark(run);
    }
    if (run.now().isAfter(run.task().started().plus(run.spec().timeout()))) {
      return new StepResult.Failed(Reason.REPLACE_TIMEOUT, "instance " + run.task().handle() + " was marked Unhealthy, but"
          + " the Node object is still here after " + Durations.format(run.spec().timeout()));
    }
    return new StepResult.Running(run.episode().progress().note(), Optional.empty());
  }

  private static StepResult mark(LongStepRun<ReplaceSpec> run) throws ClusterException {
    String node = run.node();
    ProviderId id = ProviderId.parse(run.ports().cluster().providerId(node).orElse(null));
    if (!(id instanceof ProviderId.Aws aws)) {
      return new StepResult.Failed(Reason.REPLACE_FAILED, "cannot replace " + node + ": its providerID is now "
          + ((ProviderId.Unsupported) id).seen());
    }
    try {
      InstanceHealth.Marked marked = run.ports().outside().instances().markUnhealthy(aws);
      String note = aws.instanceId() + (marked == InstanceHealth.Marked.ALREADY_UNHEALTHY
          ? " was already marked Unhealthy (nothing sent)" : " marked Unhealthy in its Auto Scaling group");
      return new StepResult.Started(aws.instanceId(), note + "; waiting for the Node object to go", note
          + "; the episode ends when the Node object is gone (timeout " + Durations.format(run.spec().timeout()) + ")");
    } catch (OutboundException e) {
      if (!e.retriable()) {
        return new StepResult.Failed(Reason.REPLACE_FAILED, "instance " + aws.instanceId() + " of " + node
            + " not replaced: " + e.getMessage());
      }
      Instant again = run.now().plus(run.ports().retryDelay());
      return new StepResult.Running("marking " + aws.instanceId() + " unhealthy: " + e.getMessage() + "; retried at "
          + again, Optional.of(again));
    }
  }
}
