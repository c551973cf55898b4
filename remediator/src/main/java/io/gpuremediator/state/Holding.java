package io.gpuremediator.state;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One held thing on a node with its holders, as a claim has its holders.
 *
 * @param holders the fingerprints of the active episodes holding it, each with the key of its step that holds it;
 *     empty: no episode holds it, and it is to be given back
 */
public record Holding(Held held, SortedMap<String, String> holders) {
  /** Copies the holders. */
  public Holding {
    holders = Collections.unmodifiableSortedMap(new TreeMap<>(holders));
  }
}
