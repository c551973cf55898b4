package io.gpuremediator.safety;

import java.util.Objects;

/**
 * The limits long steps take a place in, beside the admission's: nodes draining at once ({@code safety.max_draining}),
 * pre-flight Jobs at once ({@code preflight.max_concurrent}), and instance replacements fleet-wide
 * ({@code safety.replace_rate_limit}, the pause, the breaker), and the GPUs fenced ({@code safety.max_unavailable_gpus},
 * {@code safety.max_fenced_per_node}).
 */
public record StepLimits(Slots drains, Slots preflights, ReplaceBudget replacements, GpuBudget gpus) {
  /** Validates presence. */
  public StepLimits {
    Objects.requireNonNull(drains, "drains");
    Objects.requireNonNull(preflights, "preflights");
    Objects.requireNonNull(replacements, "replacements");
    Objects.requireNonNull(gpus, "gpus");
  }

  /** Limits with no GPU to fence. */
  public StepLimits(Slots drains, Slots preflights, ReplaceBudget replacements) {
    this(drains, preflights, replacements, GpuBudget.none());
  }
}
