package io.gpuremediator.safety;

import java.time.Duration;
import java.time.Instant;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;

/**
 * Times in order, oldest first, that nobody can change. The fleet state keeps its starts so: whether any is old enough
 * to prune is its first, and how many fall within a window two binary searches, where a list in no order costs a scan of
 * every start at every admission (thousands in a large event).
 */
final class Times extends AbstractList<Instant> implements RandomAccess {
  private static final Times NONE = new Times(new Instant[0]);

  private final Instant[] sorted;

  private Times(Instant[] sorted) {
    this.sorted = sorted;
  }

  /** {@code times} itself when already in order, else a sorted copy of it (no null allowed). */
  static Times of(List<Instant> times) {
    if (times instanceof Times t) {
      return t;
    }
    Instant[] copy = times.toArray(new Instant[0]);
    for (Instant t : copy) {
      if (t == null) {
        throw new NullPointerException("a time is null");
      }
    }
    Arrays.sort(copy);
    return copy.length == 0 ? NONE : new Times(copy);
  }

  /** {@code times} with {@code t} added in its place (after any equal time). */
  static Times with(List<Instant> times, Instant t) {
    Instant[] from = of(times).sorted;
    int at = firstAfter(from, t);
    Instant[] next = new Instant[from.length + 1];
    System.arraycopy(from, 0, next, 0, at);
    next[at] = t;
    System.arraycopy(from, at, next, at + 1, from.length - at);
    return new Times(next);
  }

  /** The times of {@code times} after {@code from}. */
  static Times after(List<Instant> times, Instant from) {
    Times all = of(times);
    int at = firstAfter(all.sorted, from);
    return at == 0 ? all : at == all.sorted.length ? NONE : new Times(Arrays.copyOfRange(all.sorted, at, all.sorted.length));
  }

  /** Whether a time of {@code times} is not after {@code from}. */
  static boolean anyNotAfter(List<Instant> times, Instant from) {
    Times all = of(times);
    return all.sorted.length > 0 && !all.sorted[0].isAfter(from);
  }

  /** How many times of {@code times} fall within {@code window} before {@code now}: after now - window, not after now. */
  static int countWithin(List<Instant> times, Instant now, Duration window) {
    Instant[] all = of(times).sorted;
    return Math.max(0, firstAfter(all, now) - firstAfter(all, now.minus(window)));
  }

  /** The index of the first time after {@code t} ({@code length} when none is). */
  private static int firstAfter(Instant[] sorted, Instant t) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid].isAfter(t)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  @Override
  public Instant get(int index) {
    return sorted[index];
  }

  @Override
  public int size() {
    return sorted.length;
  }
}
