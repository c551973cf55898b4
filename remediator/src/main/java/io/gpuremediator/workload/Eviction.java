package io.gpuremediator.workload;

import java.time.Duration;
import java.util.Optional;

/** What the Eviction API (policy/v1) answered for one pod. */
public sealed interface Eviction {
  /** 200/201: the pod is being deleted. */
  record Granted() implements Eviction {}

  /** 404: the pod is already gone. */
  record Gone() implements Eviction {}

  /**
   * 429 with a {@code DisruptionBudget} cause: a PodDisruptionBudget allows no disruption now.
   *
   * @param budget the budget's name as the cause message gives it, or empty when it names none
   * @param message the cause's message, e.g. "The disruption budget llm-pdb needs 2 healthy pods and has 2 currently"
   */
  record BudgetBlocked(Optional<String> budget, String message, Optional<Duration> retryAfter) implements Eviction {}

  /** 429 without a DisruptionBudget cause: the API server is throttling us. */
  record Throttled(Optional<Duration> retryAfter) implements Eviction {}

  /** 500 "more than one PodDisruptionBudget": the eviction subresource cannot decide; retrying will not help. */
  record SeveralBudgets(String message) implements Eviction {}

  /** Any other refusal, with its HTTP status and message. */
  record Refused(int code, String message) implements Eviction {}
}
