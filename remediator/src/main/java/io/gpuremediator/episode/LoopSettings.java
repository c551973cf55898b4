package io.gpuremediator.episode;

import io.gpuremediator.value.Budget;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * How the loop runs.
 *
 * @param interval how often every episode is looked at (watch events look sooner)
 * @param retryDelay how long a blocked eviction (PodDisruptionBudget, throttling without Retry-After) waits
 * @param maxDraining how many nodes may be in stage draining at once ({@code safety.max_draining})
 * @param jobNamespace where diagnostic Jobs are created
 * @param replaceProviders the replace providers working through the Kubernetes API whose RBAC the config says is
 *     deployed ({@code karpenter}, {@code cluster-api})
 * @param preflight the pre-flight gate, when configured
 */
public record LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace,
    Set<String> replaceProviders, Optional<PreflightSettings> preflight) {
  /** Settings with no replace provider through the Kubernetes API and no pre-flight gate. */
  public LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace) {
    this(interval, retryDelay, maxDraining, jobNamespace, Set.of(), Optional.empty());
  }

  /** Validates presence. */
  public LoopSettings {
    replaceProviders = Set.copyOf(replaceProviders);
    Objects.requireNonNull(preflight, "preflight");
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(retryDelay, "retryDelay");
    Objects.requireNonNull(maxDraining, "maxDraining");
    Objects.requireNonNull(jobNamespace, "jobNamespace");
  }
}
