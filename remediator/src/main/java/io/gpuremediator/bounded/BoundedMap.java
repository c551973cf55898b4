package io.gpuremediator.bounded;

import java.util.LinkedHashMap;
import java.util.Map;

/** Maps of at most a given size that drop their eldest entry to make room; not synchronized (wrap them if shared). */
public final class BoundedMap {
  private BoundedMap() {}

  /** At most {@code max} entries; past it the one read or written longest ago is dropped. */
  public static <K, V> Map<K, V> leastRecentlyUsed(int max) {
    return new Eldest<>(max, true);
  }

  /** At most {@code max} entries; past it the one put first is dropped (reads do not keep an entry). */
  public static <K, V> Map<K, V> firstInFirstOut(int max) {
    return new Eldest<>(max, false);
  }

  private static final class Eldest<K, V> extends LinkedHashMap<K, V> {
    private static final long serialVersionUID = 1L;
    private final int max;

    Eldest(int max, boolean accessOrder) {
      super(Math.min(max, 256) * 2, 0.75f, accessOrder);
      if (max < 1) {
        throw new IllegalArgumentException("a bounded map holds at least one entry, not " + max);
      }
      this.max = max;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
      return size() > max;
    }
  }
}
