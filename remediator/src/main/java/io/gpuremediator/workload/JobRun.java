package io.gpuremediator.workload;

import java.time.Instant;
import java.util.Objects;

/**
 * A Job as a look finds it.
 *
 * @param state where it is, from its status conditions
 * @param created when the API server created it (its metadata.creationTimestamp): a wait on it ends at this plus its
 *     timeout, whether or not a Job controller marked the deadline
 * @param reason the reason of its Failed condition ({@code PodFailurePolicy}: a rule of its pod failure policy failed it,
 *     {@code BackoffLimitExceeded}, {@code DeadlineExceeded}); empty when it has not failed
 */
public record JobRun(JobState state, Instant created, String reason) {
  /** The reason a pod failure policy gives a Job it failed. */
  public static final String POD_FAILURE_POLICY = "PodFailurePolicy";

  /** Validates presence. */
  public JobRun {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(created, "created");
    reason = reason == null ? "" : reason;
  }

  /** A Job whose failure, if any, gives no reason. */
  public JobRun(JobState state, Instant created) {
    this(state, created, "");
  }
}
