package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.safety.FleetState;
import io.gpuremediator.safety.SafetySnapshot;
import io.gpuremediator.value.CountOrPercent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FleetWarningsLogTest {
  private static final CountOrPercent TEN_PERCENT = CountOrPercent.parse("10%").value();

  /** The gate's snapshot of a fleet of {@code selected} nodes under max_unavailable 10%. */
  private static SafetySnapshot fleetOf(int selected) {
    return new SafetySnapshot(true, selected, 0, TEN_PERCENT.of(selected), "10/1h", 0, Map.of(), FleetState.Breaker.CLOSED, 0, 5,
        Duration.ofMinutes(10), Optional.empty(), Optional.empty(), List.of(), List.of(), List.of(), Map.of());
  }

  @Test
  void saysNothingBeforeTheWatchHasSyncedThenWhatTheSelectedFleetMakesOfTheBudget() {
    AtomicBoolean synced = new AtomicBoolean(false);
    AtomicInteger selected = new AtomicInteger(0);
    FleetWarningsLog log = new FleetWarningsLog(synced::get, () -> fleetOf(selected.get()));
    assertThat(log.check()).as("an empty cache before the first list is not an empty fleet").isEmpty();
    synced.set(true);
    selected.set(6);
    assertThat(log.check()).singleElement().asString().startsWith("safety.max_unavailable allows 0 of the 6 selected nodes");
    selected.set(0);
    assertThat(log.check()).singleElement().asString().startsWith("node_selector matches no node");
    selected.set(24);
    assertThat(log.check()).isEmpty();
  }
}
