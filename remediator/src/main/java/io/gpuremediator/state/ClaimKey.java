package io.gpuremediator.state;

import java.util.Map;

/**
 * What one of our actions changed on a node, as a key of the ledger's claims. The ledger stores the key's
 * {@linkplain #text() text} (its contract); everything else reads the typed claim {@link #parse} makes of it.
 */
public sealed interface ClaimKey {
  /** The cordon's key text ({@code spec.unschedulable}). */
  String CORDON = "cordon";

  /** The key as the ledger stores it, e.g. {@code taint/gpu-remediator.io/quarantine/NoSchedule}. */
  String text();

  /** Whether holding this change keeps new work off the node: our cordon, or our NoSchedule / NoExecute taint. */
  default boolean takesNodeOutOfService() {
    return false;
  }

  /** The cordon. */
  record Cordon() implements ClaimKey {
    @Override
    public String text() {
      return CORDON;
    }

    @Override
    public boolean takesNodeOutOfService() {
      return true;
    }
  }

  /** A taint, by key and its effect's API name. */
  record TaintClaim(String key, String effect) implements ClaimKey {
    @Override
    public String text() {
      return taint(key, effect);
    }

    /** NoSchedule and NoExecute keep work off the node; PreferNoSchedule only discourages it. */
    @Override
    public boolean takesNodeOutOfService() {
      return effect.equals("NoSchedule") || effect.equals("NoExecute");
    }
  }

  /** A label, by key. */
  record LabelClaim(String key) implements ClaimKey {
    @Override
    public String text() {
      return label(key);
    }
  }

  /** Anything else we hold (an annotation, a condition), by its text. */
  record OtherClaim(String text) implements ClaimKey {}

  /** The typed claim a ledger key names. */
  static ClaimKey parse(String text) {
    if (text.equals(CORDON)) {
      return new Cordon();
    }
    int last = text.lastIndexOf('/');
    if (text.startsWith("taint/") && last > "taint/".length()) {
      return new TaintClaim(text.substring("taint/".length(), last), text.substring(last + 1));
    }
    if (text.startsWith("label/")) {
      return new LabelClaim(text.substring("label/".length()));
    }
    return new OtherClaim(text);
  }

  /** Whether {@code holder} (an episode's fingerprint) holds a claim in the ledger that takes the node out of service. */
  static boolean keepsOutOfService(NodeLedger ledger, String holder) {
    for (Map.Entry<String, Claim> c : ledger.claims().entrySet()) {
      if (c.getValue().holders().contains(holder) && parse(c.getKey()).takesNodeOutOfService()) {
        return true;
      }
    }
    return false;
  }

  /** Whether any of the ledger's claims takes the node out of service. */
  static boolean anyTakesNodeOutOfService(NodeLedger ledger) {
    for (String key : ledger.claims().keySet()) {
      if (parse(key).takesNodeOutOfService()) {
        return true;
      }
    }
    return false;
  }

  /** A taint's key text, by key and effect. */
  static String taint(String key, String effect) {
    return "taint/" + key + "/" + effect;
  }

  /** A label's key text. */
  static String label(String key) {
    return "label/" + key;
  }

  /** An annotation's key text. */
  static String annotation(String key) {
    return "annotation/" + key;
  }

  /** A node condition's key text, by type. */
  static String condition(String type) {
    return "condition/" + type;
  }
}
