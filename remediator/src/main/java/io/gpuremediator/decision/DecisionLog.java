package io.gpuremediator.decision;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** The most recent decisions, bounded, newest first. Thread-safe. */
public final class DecisionLog {
  private final int capacity;
  private final ArrayDeque<Decision> entries;

  /** Creates a log that keeps the newest {@code capacity} decisions. */
  public DecisionLog(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive");
    }
    this.capacity = capacity;
    this.entries = new ArrayDeque<>(capacity);
  }

  /** The most decisions {@link #recent} can return. */
  public int capacity() {
    return capacity;
  }

  /** Adds a decision, dropping the oldest when full. */
  public synchronized void add(Decision decision) {
    if (entries.size() == capacity) {
      entries.removeLast();
    }
    entries.addFirst(decision);
  }

  /** Up to {@code limit} decisions, newest first. */
  public synchronized List<Decision> recent(int limit) {
    List<Decision> out = new ArrayList<>(Math.min(limit, entries.size()));
    Iterator<Decision> it = entries.iterator();
    while (it.hasNext() && out.size() < limit) {
      out.add(it.next());
    }
    return out;
  }
}
