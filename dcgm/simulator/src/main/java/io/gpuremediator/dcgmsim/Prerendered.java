package io.gpuremediator.dcgmsim;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Exposition text rendered once per fleet change and served as bytes from then on, so that a scrape
 * costs a copy rather than a rendering (a slow, busy machine must still answer every scrape within
 * Prometheus' 1 s timeout). Keyed by endpoint; an entry is stale once the fleet's generation moved.
 */
final class Prerendered {
  private record Entry(long generation, byte[] bytes) {}

  private final SimFleet fleet;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  Prerendered(SimFleet fleet) {
    this.fleet = fleet;
  }

  /** The bytes of {@code key}'s text, rendered by {@code render} only when the fleet changed since the last time. */
  byte[] get(String key, Supplier<String> render) {
    long generation = fleet.generation();
    Entry e = entries.get(key);
    if (e == null || e.generation() != generation) {
      // Rendered after reading the generation: a change during rendering makes the entry stale, never wrong for long.
      e = new Entry(generation, render.get().getBytes(StandardCharsets.UTF_8));
      entries.put(key, e);
    }
    return e.bytes();
  }
}
