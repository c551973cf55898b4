package io.gpuremediator.safety;

import java.util.Objects;

/**
 * The limits long steps take a place in, beside the admission's: nodes draining at once ({@code safety.max_draining}),
 * pre-flight Jobs at once ({@code preflight.max_concurrent}), and instance replacements fleet-wide
 * ({@code safety.replace_rate_limit}, the pause, the breaker).
 */
public record StepLimits(Slots drains, Slots preflights, ReplaceBudget replacements) {
  /** Validates presence. */
  public StepLimits {
    Objects.requireNonNull(drains, "drains");
    Objects.requireNonNull(preflights, "preflights");
    Objects.requireNonNull(replacements, "replacements");
  }
}
