package io.gpuremediator.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The names of the nodes a cache changed, one per change, numbered by generation: a count over the fleet is brought up
 * to date by the nodes changed since it last counted instead of by every node again. Bounded: a count further behind
 * than {@code capacity} changes counts every node again. Thread-safe.
 *
 * <p>A change is recorded after the cache holds it: whoever reads generation N finds every change up to N in the cache.
 */
public final class ChangeLog {
  private final String[] names;
  private long generation;

  /** Creates a log that remembers the last {@code capacity} changes. */
  public ChangeLog(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("a change log needs room for one change at least");
    }
    this.names = new String[capacity];
  }

  /** Records that the cache now holds a change of this node (or no longer holds it). */
  public synchronized void changed(String name) {
    names[(int) (generation % names.length)] = name;
    generation++;
  }

  /** How many changes were recorded: a number that moves whenever the cache changes. */
  public synchronized long generation() {
    return generation;
  }

  /**
   * The nodes changed after generation {@code from} up to {@code to}, in order, repeated when changed twice; empty when
   * the log no longer holds all of them (or {@code from} is not an earlier generation of this log).
   */
  public synchronized Optional<List<String>> between(long from, long to) {
    if (from < 0 || from > to || to > generation || generation - from > names.length) {
      return Optional.empty();
    }
    List<String> out = new ArrayList<>((int) (to - from));
    for (long g = from; g < to; g++) {
      out.add(names[(int) (g % names.length)]);
    }
    return Optional.of(out);
  }
}
