package io.gpuremediator.safety;

import java.time.Instant;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Values by node, sorted, each with a time, that nobody can change: the fleet state's sightings, shared by its versions.
 * Every webhook that names new episodes makes a version: its sightings go into a small layer of recent ones over a base
 * shared with the versions before, and the two are merged into a new base only when the layer outgrows the square root
 * of the base. A webhook's sightings cost about that square root, not a copy of every node seen in the day the state
 * keeps (thousands after a storm).
 *
 * <p>Each version also knows a time no value's time is before, so that pruning, which every webhook asks about, needs no
 * scan. It is a bound, not the oldest: a node seen again may have been the oldest; pruning then finds nothing to drop,
 * and the pruned version's bound is exact again.
 */
final class LayeredMap<V> extends AbstractMap<String, V> {
  @SuppressWarnings("rawtypes")
  private static final TreeMap NOTHING = new TreeMap<>();
  /** The recent layer is merged into the base when larger than this and than the base's square root. */
  private static final int LAYER = 32;

  private final TreeMap<String, V> base;
  /** Values newer than the base's; a node in both is as this layer says. */
  private final TreeMap<String, V> recent;
  private final int size;
  private final Instant seenFrom;

  private LayeredMap(TreeMap<String, V> base, TreeMap<String, V> recent, int size, Instant seenFrom) {
    this.base = base;
    this.recent = recent;
    this.size = size;
    this.seenFrom = seenFrom;
  }

  /** {@code map} itself when layered already, else a copy with the exact bound: the earliest {@code timeOf} its values. */
  @SuppressWarnings("unchecked")
  static <V> LayeredMap<V> frozen(Map<String, V> map, Function<V, Instant> timeOf) {
    if (map instanceof LayeredMap<?> layered) {
      return (LayeredMap<V>) layered;
    }
    TreeMap<String, V> copy = new TreeMap<>(map);
    Instant oldest = Instant.MAX;
    for (V v : copy.values()) {
      oldest = earlier(oldest, timeOf.apply(v));
    }
    return adopt(copy, oldest);
  }

  /** Freezes a map just built, no value's time before {@code seenFrom}; the caller keeps no reference to it. */
  @SuppressWarnings("unchecked")
  static <V> LayeredMap<V> adopt(TreeMap<String, V> built, Instant seenFrom) {
    return new LayeredMap<>(built, NOTHING, built.size(), built.isEmpty() ? Instant.MAX : seenFrom);
  }

  /** This map with {@code seen} added or replacing its values, none of those with a time before {@code seenFrom}. */
  LayeredMap<V> with(Map<String, V> seen, Instant seenFrom) {
    if (seen.isEmpty()) {
      return this;
    }
    TreeMap<String, V> layer = new TreeMap<>(recent);
    int n = size;
    for (Map.Entry<String, V> e : seen.entrySet()) {
      if (layer.put(e.getKey(), e.getValue()) == null && !base.containsKey(e.getKey())) {
        n++;
      }
    }
    Instant bound = earlier(this.seenFrom, seenFrom);
    if (layer.size() <= Math.max(LAYER, Math.sqrt(base.size()))) {
      return new LayeredMap<>(base, layer, n, bound);
    }
    TreeMap<String, V> merged = new TreeMap<>(base);
    merged.putAll(layer);
    return adopt(merged, bound);
  }

  /** A time no value's time is before ({@code Instant.MAX} when there is none). */
  Instant seenFrom() {
    return seenFrom;
  }

  /** A sorted copy to change. */
  TreeMap<String, V> thaw() {
    TreeMap<String, V> copy = new TreeMap<>(base);
    copy.putAll(recent);
    return copy;
  }

  /** The earlier of two times. */
  private static Instant earlier(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  @Override
  public V get(Object node) {
    V v = recent.get(node);
    return v != null ? v : base.get(node);
  }

  @Override
  public boolean containsKey(Object node) {
    return recent.containsKey(node) || base.containsKey(node);
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Set<Entry<String, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, V>> iterator() {
        return new Merged<>(base.entrySet().iterator(), recent.entrySet().iterator());
      }

      @Override
      public int size() {
        return size;
      }
    };
  }

  /** Both layers in the order of their nodes; a node in both as the recent layer says. Entries cannot be set. */
  private static final class Merged<V> implements Iterator<Entry<String, V>> {
    private final Iterator<Entry<String, V>> base;
    private final Iterator<Entry<String, V>> recent;
    private Entry<String, V> nextBase;
    private Entry<String, V> nextRecent;

    Merged(Iterator<Entry<String, V>> base, Iterator<Entry<String, V>> recent) {
      this.base = base;
      this.recent = recent;
      this.nextBase = base.hasNext() ? base.next() : null;
      this.nextRecent = recent.hasNext() ? recent.next() : null;
    }

    @Override
    public boolean hasNext() {
      return nextBase != null || nextRecent != null;
    }

    @Override
    public Entry<String, V> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      int order = nextBase == null ? 1 : nextRecent == null ? -1 : nextBase.getKey().compareTo(nextRecent.getKey());
      Entry<String, V> out = order < 0 ? nextBase : nextRecent;
      if (order <= 0) {
        nextBase = base.hasNext() ? base.next() : null;
      }
      if (order >= 0) {
        nextRecent = recent.hasNext() ? recent.next() : null;
      }
      return Map.entry(out.getKey(), out.getValue());
    }
  }
}
