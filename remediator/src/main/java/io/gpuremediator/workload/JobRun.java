package io.gpuremediator.workload;

import java.time.Instant;
import java.util.Objects;

/**
 * A Job as a look finds it.
 *
 * @param state where it is, from its status conditions
 * @param created when the API server created it (its metadata.creationTimestamp): a wait on it ends at this plus its
 *     timeout, whether or not a Job controller marked the deadline
 */
public record JobRun(JobState state, Instant created) {
  /** Validates presence. */
  public JobRun {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(created, "created");
  }
}
