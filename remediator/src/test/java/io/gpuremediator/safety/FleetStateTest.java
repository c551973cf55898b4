package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fleet state's versions share what did not change, and none of them can be changed by another. */
class FleetStateTest {
  private static final Instant T = Instant.parse("2026-11-27T10:00:00Z");

  @Test
  void aNewVersionLeavesTheOneBeforeItAsItWas() {
    FleetState before = FleetState.EMPTY.withFiring(Map.of("n1", T), T).withStart("gpu-reset", T);
    FleetState after = before.withFiring(Map.of("n2", T.plusSeconds(5)), T.plusSeconds(5)).withStart("gpu-reset", T.plusSeconds(5))
        .withIncident(new FleetState.Incident("rack", "r1", T, List.of("n1", "n2"), "two"));
    assertThat(before.firing()).containsOnlyKeys("n1");
    assertThat(before.starts()).containsExactly(T);
    assertThat(before.playbookStarts().get("gpu-reset")).containsExactly(T);
    assertThat(before.incidents()).isEmpty();
    assertThat(after.firing()).containsOnlyKeys("n1", "n2");
    assertThat(after.playbookStarts().get("gpu-reset")).containsExactly(T, T.plusSeconds(5));
    assertThat(after.incidents()).containsOnlyKeys("rack=r1");
  }

  @Test
  void aStatesMapsCannotBeChangedFromOutside() {
    Map<String, FleetState.Sighting> given = new HashMap<>(Map.of("n1", new FleetState.Sighting(T, T)));
    FleetState state = new FleetState(FleetState.Breaker.CLOSED, Optional.empty(), List.of(), Map.of(), given, Map.of());
    given.put("n2", new FleetState.Sighting(T, T));
    assertThat(state.firing()).containsOnlyKeys("n1");
    assertThatThrownBy(() -> state.firing().put("n3", new FleetState.Sighting(T, T)))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> state.firing().entrySet().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void pruningDropsWhatNoWindowSeesAndKeepsTheRest() {
    FleetState state = FleetState.EMPTY.withFiring(Map.of("old", T), T).withStart("gpu-reset", T)
        .withFiring(Map.of("new", T.plusSeconds(3000)), T.plusSeconds(3000)).withStart("gpu-reset", T.plusSeconds(3000));
    assertThat(state.pruned(T.plusSeconds(3100), Duration.ofHours(1))).isEqualTo(state);
    FleetState pruned = state.pruned(T.plusSeconds(3700), Duration.ofHours(1));
    assertThat(pruned.firing()).containsOnlyKeys("new");
    assertThat(pruned.starts()).containsExactly(T.plusSeconds(3000));
    assertThat(pruned.playbookStarts().get("gpu-reset")).containsExactly(T.plusSeconds(3000));
  }

  @Test
  void pruningDropsAPlaybookWithNoStartEvenWhenNothingIsOld() {
    FleetState state = new FleetState(FleetState.Breaker.CLOSED, Optional.empty(), List.of(T), Map.of("gpu-reset", List.of()),
        Map.of(), Map.of());
    assertThat(state.pruned(T.plusSeconds(60), Duration.ofHours(1)).playbookStarts()).isEmpty();
  }

  @Test
  void startsAreKeptOldestFirstAndCountedWithinTheirWindow() {
    FleetState state = new FleetState(FleetState.Breaker.CLOSED, Optional.empty(),
        List.of(T.plusSeconds(30), T, T.plusSeconds(10)), Map.of("gpu-reset", List.of(T.plusSeconds(10), T)), Map.of(), Map.of())
        .withStart("gpu-reset", T.plusSeconds(20));
    assertThat(state.starts()).containsExactly(T, T.plusSeconds(10), T.plusSeconds(20), T.plusSeconds(30));
    assertThat(state.playbookStarts().get("gpu-reset")).containsExactly(T, T.plusSeconds(10), T.plusSeconds(20));
    // After now - window, not after now: the start at T is out, the one at T + 30 s is yet to come.
    assertThat(FleetState.countWithin(state.starts(), T.plusSeconds(20), Duration.ofSeconds(20))).isEqualTo(2);
    assertThat(FleetState.countWithin(state.starts(), T.plusSeconds(20), Duration.ofSeconds(21))).isEqualTo(3);
    assertThat(FleetState.countWithin(List.of(T.plusSeconds(5), T), T.plusSeconds(5), Duration.ofSeconds(5))).isEqualTo(1);
  }

  @Test
  void aNodeSeenAgainIsKeptAndThePrunedStateIsNotCopiedAgain() {
    FleetState state = FleetState.EMPTY.withFiring(Map.of("a", T), T)
        .withFiring(Map.of("b", T.plusSeconds(3000)), T.plusSeconds(3000))
        .withFiring(Map.of("a", T), T.plusSeconds(3500));
    FleetState pruned = state.pruned(T.plusSeconds(3700), Duration.ofHours(1));
    assertThat(pruned).isEqualTo(state);
    assertThat(pruned.pruned(T.plusSeconds(3700), Duration.ofHours(1))).isSameAs(pruned);
    assertThat(pruned.pruned(T.plusSeconds(6700), Duration.ofHours(1)).firing()).containsOnlyKeys("a");
  }

  @Test
  void episodesAcknowledgedAtAResetAreStillPrunedWhenOld() {
    FleetState state = FleetState.EMPTY.withFiring(Map.of("old", T), T)
        .withFiring(Map.of("new", T.plusSeconds(3000)), T.plusSeconds(3000)).withBreaker(FleetState.Breaker.CLOSED);
    assertThat(state.acknowledged()).containsOnlyKeys("old", "new");
    assertThat(state.pruned(T.plusSeconds(3700), Duration.ofHours(1)).acknowledged()).containsOnlyKeys("new");
  }

  @Test
  void episodesAcknowledgedAtAnIncidentResetAreStillPrunedWhenOld() {
    FleetState state = FleetState.EMPTY.withFiring(Map.of("old", T), T)
        .withFiring(Map.of("new", T.plusSeconds(3000)), T.plusSeconds(3000))
        .withIncident(new FleetState.Incident("rack", "r1", T, List.of("old", "new"), "two"))
        .withoutIncident("rack", "r1", List.of("old", "new"));
    assertThat(state.firing()).isEmpty();
    assertThat(state.acknowledged()).containsOnlyKeys("old", "new");
    assertThat(state.pruned(T.plusSeconds(3700), Duration.ofHours(1)).acknowledged()).containsOnlyKeys("new");
  }
}
