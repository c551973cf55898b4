package io.gpuremediator.decision;

import java.util.Objects;

/**
 * A safety limit's refusal: a stable reason code and a sentence for people.
 *
 * @param reason one of the suppressing reasons (paused, breaker, budgets, cooldown) or the safety state being unavailable
 */
public record Refusal(Reason reason, String detail) {
  /** Validates presence. */
  public Refusal {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(detail, "detail");
  }
}
