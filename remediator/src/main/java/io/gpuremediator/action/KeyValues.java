package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import java.util.Map;

/** Setting and removing a label or annotation of ours, with the ledger's ownership rules. */
final class KeyValues {
  private KeyValues() {}

  /** Which of the node's maps. */
  enum Kind { LABELS, ANNOTATIONS }

  private static Map<String, String> read(NodeDraft draft, Kind kind) {
    return kind == Kind.LABELS ? draft.labels() : draft.annotations();
  }

  private static Map<String, String> write(NodeDraft draft, Kind kind) {
    return kind == Kind.LABELS ? draft.labelsForWrite() : draft.annotationsForWrite();
  }

  /** Sets {@code key=value} unless the key is there and not ours. */
  static ActionRecord set(NodeDraft draft, Kind which, String claimKey, String kind, String key, String value) {
    String present = read(draft, which).get(key);
    boolean claimed = draft.ledger().claim(claimKey).isPresent();
    boolean ours = draft.ledger().claim(claimKey).map(c -> !c.preexisting()).orElse(false);
    draft.ledger(draft.ledger().hold(claimKey, draft.holder(), present != null && !claimed));
    if (present == null || (ours && !present.equals(value))) {
      write(draft, which).put(key, value);
      return new ActionRecord(kind, StepOutcome.APPLIED, "set " + key + "=" + value);
    }
    String whose = ours || present.equals(value) ? "" : " (not ours; left as it is)";
    return new ActionRecord(kind, StepOutcome.UNCHANGED, key + "=" + present + " already present" + whose);
  }

  /** Removes {@code key} when we set it and no other alert needs it. */
  static ActionRecord remove(NodeDraft draft, Kind which, String claimKey, String kind, String key) {
    Claims.Release release = Claims.release(draft, claimKey);
    if (release != Claims.Release.UNDO) {
      return Claims.unchanged(kind, release, key);
    }
    if (!read(draft, which).containsKey(key)) {
      return new ActionRecord(kind, StepOutcome.UNCHANGED, key + " already gone");
    }
    write(draft, which).remove(key);
    return new ActionRecord(kind, StepOutcome.APPLIED, "remove " + key);
  }
}
