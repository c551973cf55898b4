package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import java.util.Map;

/** Setting and removing a label or annotation of ours, with the ledger's ownership rules. */
final class KeyValues {
  private KeyValues() {}

  /** Sets {@code key=value} unless the key is there and not ours. */
  static ActionRecord set(NodeDraft draft, Map<String, String> map, String claimKey, String kind, String key, String value) {
    String present = map.get(key);
    boolean claimed = draft.ledger().claim(claimKey).isPresent();
    boolean ours = draft.ledger().claim(claimKey).map(c -> !c.preexisting()).orElse(false);
    draft.ledger(draft.ledger().hold(claimKey, draft.holder(), present != null && !claimed));
    if (present == null || (ours && !present.equals(value))) {
      map.put(key, value);
      return new ActionRecord(kind, "applied", "set " + key + "=" + value);
    }
    String whose = ours || present.equals(value) ? "" : " (not ours; left as it is)";
    return new ActionRecord(kind, "unchanged", key + "=" + present + " already present" + whose);
  }

  /** Removes {@code key} when we set it and no other alert needs it. */
  static ActionRecord remove(NodeDraft draft, Map<String, String> map, String claimKey, String kind, String key) {
    Claims.Release release = Claims.release(draft, claimKey);
    if (release != Claims.Release.UNDO) {
      return Claims.unchanged(kind, release, key);
    }
    if (map.remove(key) == null) {
      return new ActionRecord(kind, "unchanged", key + " already gone");
    }
    return new ActionRecord(kind, "applied", "remove " + key);
  }
}
