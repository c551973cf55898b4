package io.gpuremediator.episode;

import io.gpuremediator.value.Budget;
import java.time.Duration;
import java.util.Objects;

/**
 * How the loop runs.
 *
 * @param interval how often every episode is looked at (watch events look sooner)
 * @param retryDelay how long a blocked eviction (PodDisruptionBudget, throttling without Retry-After) waits
 * @param maxDraining how many nodes may be in stage draining at once ({@code safety.max_draining})
 * @param jobNamespace where diagnostic Jobs are created
 */
public record LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace) {
  /** Validates presence. */
  public LoopSettings {
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(retryDelay, "retryDelay");
    Objects.requireNonNull(maxDraining, "maxDraining");
    Objects.requireNonNull(jobNamespace, "jobNamespace");
  }
}
