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

  /** A taint claim's parts: the taint's key and its effect's API name. */
  public record TaintClaim(String key, String effect) {}

  /** The taint a claim key names, if it names one. */
  public static java.util.Optional<TaintClaim> taintOf(String claimKey) {
    int last = claimKey.lastIndexOf('/');
    return claimKey.startsWith("taint/") && last > "taint/".length()
        ? java.util.Optional.of(new TaintClaim(claimKey.substring("taint/".length(), last), claimKey.substring(last + 1)))
        : java.util.Optional.empty();
  }

  /** The label key a claim key names, if it names a label. */
  public static java.util.Optional<String> labelOf(String claimKey) {
    return claimKey.startsWith("label/") ? java.util.Optional.of(claimKey.substring("label/".length()))
        : java.util.Optional.empty();
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
