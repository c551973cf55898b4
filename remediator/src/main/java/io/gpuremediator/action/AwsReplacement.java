package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.ProviderId;
import io.gpuremediator.value.Durations;
import java.util.Optional;

/**
 * {@code provider: aws}: the providerID read fresh names the instance (another cloud, or none, is refused before
 * anything is called); the instance is marked Unhealthy in its Auto Scaling group, which terminates and replaces it.
 * The port's look-up first finds an instance already marked (a restart before the mark was recorded), so one episode
 * sends one SetInstanceHealth.
 */
final class AwsReplacement implements Replacement {

  @Override
  public String what(ReplaceRequest spec, String node) {
    return "replace " + node + ": mark its aws instance Unhealthy in its Auto Scaling group (SetInstanceHealth, grace"
        + " period respected), then wait up to " + Durations.format(spec.timeout()) + " for the Node object to go";
  }

  @Override
  public Optional<StepStart.Impossible> check(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException {
    String node = run.node();
    if (run.ports().outside().instances() == InstanceHealth.NOT_CONFIGURED) {
      return Optional.of(new StepStart.Impossible(Reason.REPLACE_FAILED, "cannot replace " + node + ": no cloud is"
          + " configured (cloud.aws in the service config); nothing was called"));
    }
    ProviderId id = ProviderId.parse(run.ports().cluster().identity(node).providerId().orElse(null));
    if (id instanceof ProviderId.Unsupported u) {
      return Optional.of(new StepStart.Impossible(Reason.PROVIDER_UNSUPPORTED, "cannot replace " + node + ": its"
          + " providerID is " + u.seen() + "; nothing was called"));
    }
    return Optional.empty();
  }

  @Override
  public StepResult ask(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException {
    String node = run.node();
    ProviderId id = ProviderId.parse(run.ports().cluster().identity(node).providerId().orElse(null));
    if (!(id instanceof ProviderId.Aws aws)) {
      return new StepResult.Failed(Reason.REPLACE_FAILED, "cannot replace " + node + ": its providerID is now "
          + ((ProviderId.Unsupported) id).seen());
    }
    try {
      InstanceHealth.Marked marked = run.ports().outside().instances().markUnhealthy(aws);
      String note = aws.instanceId() + (marked == InstanceHealth.Marked.ALREADY_UNHEALTHY
          ? " was already marked Unhealthy (nothing sent)" : " marked Unhealthy in its Auto Scaling group");
      return ReplaceSteps.asked(run, spec, aws.instanceId(), note);
    } catch (OutboundException e) {
      if (!e.retriable()) {
        return new StepResult.Failed(Reason.REPLACE_FAILED, "instance " + aws.instanceId() + " of " + node
            + " not replaced: " + e.getMessage());
      }
      return ReplaceSteps.retried(run, "marking " + aws.instanceId() + " unhealthy", e.getMessage(), e.notBefore());
    }
  }
}
