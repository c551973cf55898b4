package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ReplaceProvider;
import io.gpuremediator.value.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** What every replace provider answers alike: asked, retried, or not deployed. */
final class ReplaceSteps {
  private ReplaceSteps() {}

  /** The replacement was asked (now, or before): the task records {@code handle}; the step waits for the node to go. */
  static StepResult asked(LongStepRun<?> run, ReplaceRequest spec, String handle, String note) {
    return new StepResult.Started(handle, note + "; waiting for the Node object to go", note + "; the episode ends"
        + " when the Node object is gone (timeout " + Durations.format(spec.timeout()) + ")");
  }

  /** A transient failure (throttled, busy, no answer): asked again after the retry delay. */
  static StepResult retried(LongStepRun<?> run, String doing, String why) {
    return retried(run, doing, why, Optional.empty());
  }

  /** The same, not before {@code notBefore} when the other side said when asking again can work. */
  static StepResult retried(LongStepRun<?> run, String doing, String why, Optional<Duration> notBefore) {
    Duration wait = notBefore.filter(d -> d.compareTo(run.ports().retryDelay()) > 0).orElse(run.ports().retryDelay());
    Instant again = run.now().plus(wait);
    return new StepResult.Running(doing + ": " + why + "; retried at " + again, Optional.of(again));
  }

  /**
   * A provider that works through the Kubernetes API needs its RBAC, which the service config says is deployed
   * ({@code cloud.<key>}, set by the provider's overlay); without it nothing is called.
   */
  static Optional<StepStart.Impossible> notConfigured(LongStepRun<?> run, ReplaceProvider provider) {
    if (run.ports().replaceProviders().contains(provider.name())) {
      return Optional.empty();
    }
    return Optional.of(new StepStart.Impossible(Reason.REPLACE_FAILED, "cannot replace " + run.node() + " through "
        + provider.name() + ": cloud." + provider.configKey() + " is not in the service config (the " + provider.overlay()
        + " overlay sets it and grants the RBAC it needs); nothing was called"));
  }
}
