package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.value.Budget;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FleetWarningsLogTest {
  @Test
  void saysNothingBeforeTheWatchHasSyncedThenWhatTheSelectedFleetMakesOfTheBudget() {
    AtomicBoolean synced = new AtomicBoolean(false);
    AtomicInteger selected = new AtomicInteger(0);
    FleetWarningsLog log = new FleetWarningsLog(synced::get, selected::get, Budget.parse("10%").value());
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
