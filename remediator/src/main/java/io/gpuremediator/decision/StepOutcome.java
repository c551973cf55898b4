package io.gpuremediator.decision;

import java.util.Locale;

/** What one step of a decision did: the closed set of {@code actions[].outcome} of the HTTP API and the logs. */
public enum StepOutcome {
  /** The node was changed. */
  APPLIED,
  /** The node already was as the step wants. */
  UNCHANGED,
  /** An undo left the change in place: another alert still needs it. */
  KEPT,
  /** An undo left the change in place: this alert did not make it. */
  NOT_OURS,
  /** Nothing written: the step only records what it would have done. */
  DRY_RUN,
  /** The step did not run (a long step with no episode to carry it, a write that failed). */
  NOT_RUN,
  /** The step ran and failed. */
  FAILED,
  /** A long step, or a step after one, left to the background; or an Event queued to be written after the answer. */
  PENDING;

  private final String code = name().toLowerCase(Locale.ROOT);

  /** The API spelling, e.g. {@code not_ours}. */
  public String code() {
    return code;
  }

  /** The API spelling, so a record reads in a log line as it does in the API. */
  @Override
  public String toString() {
    return code;
  }
}
