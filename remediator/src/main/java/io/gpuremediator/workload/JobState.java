package io.gpuremediator.workload;

/** Where a diagnostic Job is, from its status conditions. */
public enum JobState {
  /** No Complete or Failed condition yet. */
  RUNNING,
  /** Condition Complete=True. */
  SUCCEEDED,
  /** Condition Failed=True for a reason other than its deadline. */
  FAILED,
  /** Condition Failed=True with reason DeadlineExceeded. */
  TIMED_OUT
}
