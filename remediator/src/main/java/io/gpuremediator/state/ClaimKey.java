package io.gpuremediator.state;

/** The names of the things our actions change on a node, as keys of the ledger's claims. */
public final class ClaimKey {
  /** The cordon ({@code spec.unschedulable}). */
  public static final String CORDON = "cordon";

  private ClaimKey() {}

  /** A taint, by key and effect. */
  public static String taint(String key, String effect) {
    return "taint/" + key + "/" + effect;
  }

  /** A label, by key. */
  public static String label(String key) {
    return "label/" + key;
  }

  /** An annotation, by key. */
  public static String annotation(String key) {
    return "annotation/" + key;
  }

  /** A node condition, by type. */
  public static String condition(String type) {
    return "condition/" + type;
  }
}
