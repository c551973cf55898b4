package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.safety.FleetState.Sighting;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Sightings in layers read as one sorted map, version by version, however many versions were made. */
class LayeredMapTest {
  private static final Instant T = Instant.parse("2026-11-28T08:00:00Z");

  @Test
  void everyVersionReadsAsTheSightingsItWasMadeWith() {
    Random random = new Random(20261128);
    LayeredMap<Sighting> version = LayeredMap.frozen(Map.of(), Sighting::seenAt);
    TreeMap<String, Sighting> expected = new TreeMap<>();
    List<LayeredMap<Sighting>> versions = new ArrayList<>();
    List<TreeMap<String, Sighting>> expectedVersions = new ArrayList<>();
    // Enough versions that the recent layer is merged into the base several times (it holds 32 or the base's root).
    for (int i = 0; i < 600; i++) {
      TreeMap<String, Sighting> seen = new TreeMap<>();
      for (int k = random.nextInt(4); k >= 0; k--) {
        // Some nodes are new, some seen again: a node seen again replaces its sighting.
        Instant at = T.plusSeconds(i);
        seen.put("node-" + random.nextInt(400), new Sighting(at.minusSeconds(random.nextInt(60)), at));
      }
      version = version.with(seen, T.plusSeconds(i));
      expected.putAll(seen);
      versions.add(version);
      expectedVersions.add(new TreeMap<>(expected));
    }
    for (int i = 0; i < versions.size(); i++) {
      LayeredMap<Sighting> v = versions.get(i);
      TreeMap<String, Sighting> e = expectedVersions.get(i);
      assertThat(v).hasSize(e.size()).isEqualTo(e);
      assertThat(new ArrayList<>(v.keySet())).containsExactlyElementsOf(e.keySet());
      assertThat(v.thaw()).isEqualTo(e);
      e.forEach((node, s) -> assertThat(v.get(node)).isEqualTo(s));
      assertThat(v.containsKey("node-400")).isFalse();
    }
  }

  @Test
  void theBoundIsNeverAfterAnySighting() {
    LayeredMap<Sighting> s = LayeredMap.frozen(Map.of("a", new Sighting(T, T.plusSeconds(10)),
        "b", new Sighting(T, T.plusSeconds(5))), Sighting::seenAt);
    assertThat(s.seenFrom()).isEqualTo(T.plusSeconds(5));
    LayeredMap<Sighting> seenAgain = s.with(Map.of("b", new Sighting(T, T.plusSeconds(20))), T.plusSeconds(20));
    assertThat(seenAgain.seenFrom()).isBeforeOrEqualTo(T.plusSeconds(10));
    assertThat(LayeredMap.frozen(new TreeMap<>(seenAgain), Sighting::seenAt).seenFrom()).isEqualTo(T.plusSeconds(10));
  }

  @Test
  void itsEntriesCannotBeChanged() {
    LayeredMap<Sighting> s = LayeredMap.frozen(Map.of("a", new Sighting(T, T)), Sighting::seenAt)
        .with(Map.of("b", new Sighting(T, T)), T);
    assertThatThrownBy(() -> s.entrySet().iterator().next().setValue(new Sighting(T, T)))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> s.remove("a")).isInstanceOf(UnsupportedOperationException.class);
  }
}
