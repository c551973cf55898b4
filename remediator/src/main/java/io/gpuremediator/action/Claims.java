package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.state.Claim;
import java.util.Optional;

/** The shared undo rule: release this alert's hold on a change, and undo it only when we made it and nobody else holds it. */
final class Claims {
  private Claims() {}

  /** What releasing a claim allows. */
  enum Release {
    /** No claim, or this alert does not hold it: the change is not ours to undo. */
    NOT_OURS,
    /** Other alerts still hold it: keep it. */
    KEPT,
    /** We held it last, but it was there before us: leave it. */
    PREEXISTING,
    /** We made it and nobody holds it any more: undo it. */
    UNDO
  }

  /** Releases the draft's alert from the claim and says what may be done. */
  static Release release(NodeDraft draft, String key) {
    Optional<Claim> claim = draft.ledger().claim(key);
    if (claim.isEmpty() || !claim.get().holders().contains(draft.holder())) {
      return Release.NOT_OURS;
    }
    draft.ledger(draft.ledger().release(key, draft.holder()));
    if (claim.get().holders().size() > 1) {
      return Release.KEPT;
    }
    return claim.get().preexisting() ? Release.PREEXISTING : Release.UNDO;
  }

  /** The record for a release that changed nothing. */
  static ActionRecord unchanged(String kind, Release release, String what) {
    return switch (release) {
      case NOT_OURS -> new ActionRecord(kind, StepOutcome.NOT_OURS, what + ": not added by this alert; left in place");
      case KEPT -> new ActionRecord(kind, StepOutcome.KEPT, what + ": still needed by another alert; left in place");
      case PREEXISTING -> new ActionRecord(kind, StepOutcome.UNCHANGED, what + ": was there before us; left in place");
      case UNDO -> throw new IllegalArgumentException("an undo changes something");
    };
  }
}
