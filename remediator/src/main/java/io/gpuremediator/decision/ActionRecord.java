package io.gpuremediator.decision;

import java.util.Objects;

/**
 * One action of a decision.
 *
 * @param type the action kind, e.g. {@code taint}
 * @param outcome what it did
 * @param change the change made or that would be made, e.g. {@code add taint k=v:NoSchedule}
 */
public record ActionRecord(String type, StepOutcome outcome, String change) {
  /** Validates presence. */
  public ActionRecord {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(change, "change");
  }

  /** The same action marked as not written because it is dry-run. */
  public ActionRecord asDryRun() {
    return new ActionRecord(type, StepOutcome.DRY_RUN, change);
  }
}
