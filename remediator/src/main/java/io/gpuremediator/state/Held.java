package io.gpuremediator.state;

import java.util.Objects;
import java.util.Optional;

/**
 * One thing an episode holds off its node, under the held object's own name: an Alertmanager silence
 * ({@link HeldSilence}), a GPU's DeviceTaintRule ({@link FencedGpu}), an evidence Job ({@link EvidenceJob}). The
 * ledger keeps it with its holders, as it keeps a claim with its holders; the episode package's table of holding kinds
 * says, for each {@code kind}, how it is given back once no episode holds it and how it is seen gone.
 *
 * @param kind which kind of thing (a word of lower case and underscores)
 * @param name the held object's own name, unique within its kind on the node
 * @param value what the kind keeps beside the name (its own text; may be empty)
 */
public record Held(String kind, String name, String value) {
  /** Validates the key's parts: a kind without {@code /}, a name. */
  public Held {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    value = value == null ? "" : value;
    if (kind.isEmpty() || kind.contains("/") || name.isEmpty()) {
      throw new IllegalArgumentException("a held thing needs a kind without '/' and a name: " + kind + "/" + name);
    }
  }

  /** The ledger's key of the holding: {@code <kind>/<name>}. */
  public String key() {
    return kind + "/" + name;
  }

  /** A holding read back from the ledger's key and value; empty when the key names no kind. */
  public static Optional<Held> fromKey(String key, String value) {
    int slash = key.indexOf('/');
    return slash <= 0 || slash == key.length() - 1 ? Optional.empty()
        : Optional.of(new Held(key.substring(0, slash), key.substring(slash + 1), value));
  }
}
