package io.gpuremediator.state;

import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One change we made on a node or adopted there (a taint, the cordon), with the alerts that hold it.
 *
 * @param holders the fingerprints of the alerts that need the change
 * @param preexisting true when the node already had it before we claimed it: we never undo it
 */
public record Claim(SortedSet<String> holders, boolean preexisting) {
  /** Copies the holders. */
  public Claim {
    holders = Collections.unmodifiableSortedSet(new TreeSet<>(holders));
  }
}
