package io.gpuremediator.safety;

import io.gpuremediator.safety.FleetState.Sighting;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * Sightings by node, frozen, that know a time none of them was last seen before. Every webhook asks whether a sighting
 * is old enough to prune: the answer is this bound, not a scan of every node seen in the hour (thousands in a storm).
 * It is a bound, not the oldest: a node seen again since may have been the oldest; pruning then finds nothing, and
 * the pruned state's bound is exact again.
 */
final class FrozenSightings extends FrozenMap<String, Sighting> {
  private static final FrozenSightings NONE = new FrozenSightings(new TreeMap<>(), Instant.MAX);

  private final Instant seenFrom;

  private FrozenSightings(TreeMap<String, Sighting> map, Instant seenFrom) {
    super(map);
    this.seenFrom = seenFrom;
  }

  /** {@code sightings} itself when frozen with its bound, else a frozen copy with the exact bound. */
  static Map<String, Sighting> frozen(Map<String, Sighting> sightings) {
    if (sightings instanceof FrozenSightings s) {
      return s;
    }
    TreeMap<String, Sighting> copy = FrozenMap.thaw(sightings);
    Instant oldest = Instant.MAX;
    for (Sighting s : copy.values()) {
      oldest = s.seenAt().isBefore(oldest) ? s.seenAt() : oldest;
    }
    return copy.isEmpty() ? NONE : new FrozenSightings(copy, oldest);
  }

  /** Freezes sightings just built, none of them seen before {@code seenFrom}; the caller keeps no reference to them. */
  static Map<String, Sighting> adopt(TreeMap<String, Sighting> built, Instant seenFrom) {
    return built.isEmpty() ? NONE : new FrozenSightings(built, seenFrom);
  }

  /** A time none of {@code sightings} was last seen before ({@code Instant.MAX} when there is none). */
  static Instant seenFrom(Map<String, Sighting> sightings) {
    return ((FrozenSightings) frozen(sightings)).seenFrom;
  }

  /** The earlier of two times. */
  static Instant earlier(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
