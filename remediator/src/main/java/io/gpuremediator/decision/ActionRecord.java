package io.gpuremediator.decision;

import java.util.Objects;

/**
 * One action of a decision.
 *
 * @param type the action kind, e.g. {@code taint}
 * @param outcome {@code applied}, {@code unchanged}, {@code kept}, {@code not_ours}, {@code dry_run},
 *     {@code not_run}, {@code failed}, or {@code pending} (a long step, or a step after one, left to the
 *     background)
 * @param change the change made or that would be made, e.g. {@code add taint k=v:NoSchedule}
 */
public record ActionRecord(String type, String outcome, String change) {
  /** The outcome of a step that runs later, in the background. */
  public static final String PENDING = "pending";

  /** Validates presence. */
  public ActionRecord {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(change, "change");
  }

  /** The same action marked as not written because it is dry-run. */
  public ActionRecord asDryRun() {
    return new ActionRecord(type, "dry_run", change);
  }
}
