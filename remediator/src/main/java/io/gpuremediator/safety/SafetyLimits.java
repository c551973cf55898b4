package io.gpuremediator.safety;

import io.gpuremediator.value.Budget;
import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.util.Optional;

/**
 * The configured fleet limits.
 *
 * @param breakerNodes the breaker opens when MORE distinct nodes than this start firing within {@code breakerWindow}
 * @param cooldown the default time after a release before the same playbook may act on the node again
 */
public record SafetyLimits(
    Budget maxUnavailable,
    Rate rate,
    int breakerNodes,
    Duration breakerWindow,
    Optional<Duration> autoResetAfter,
    Duration cooldown) {

  /** How long fleet state must be kept to evaluate every window (at least a day, for playbook rate limits). */
  public Duration retention() {
    Duration longest = rate.window().compareTo(breakerWindow) > 0 ? rate.window() : breakerWindow;
    return longest.compareTo(Duration.ofDays(1)) > 0 ? longest : Duration.ofDays(1);
  }
}
