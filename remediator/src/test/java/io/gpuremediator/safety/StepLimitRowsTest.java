package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A new step limit is one class and one row: a kind that exists only in this test is added to the step limits under
 * its name, taken and given back by name as a step kind would, and its usage is a row of the safety gate's snapshot
 * (what {@code GET /api/v1/safety}, the page and {@code remediator_limit_used} show) beside the built-in ones.
 */
class StepLimitRowsTest {
  private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
  private static final String NAME = "max_bmc_sessions";

  /** The test's own limit: BMC sessions open at once, one a node. */
  static final class BmcSessions implements StepLimit {
    private final int max;
    private final Set<String> open = new TreeSet<>();

    BmcSessions(int max) {
      this.max = max;
    }

    @Override
    public synchronized Optional<Refusal> take(String node, String unit, Instant now) {
      if (!open.contains(node) && open.size() >= max) {
        // A real limit adds its own reason code; a test cannot, and borrows one.
        return Optional.of(new Refusal(Reason.MAX_DRAINING, open.size() + " of " + max + " BMC sessions are open"));
      }
      open.add(node);
      return Optional.empty();
    }

    @Override
    public synchronized void release(String node) {
      open.remove(node);
    }

    @Override
    public synchronized List<LimitUsage> usage(Instant now) {
      return List.of(new LimitUsage(NAME, open.size(), max, "BMC sessions open at once"));
    }
  }

  @Test
  void aTestOnlyLimitIsTakenByNameAndShowsItsUsageBesideTheBuiltInRows() throws Exception {
    StepLimits limits = StepLimits.onlyReplacing(ReplaceLimit.NONE).with(NAME, new BmcSessions(2));
    StepLimit sessions = limits.row(NAME);
    assertThat(sessions.take("gpu-node-1", "", T0)).isEmpty();
    assertThat(sessions.take("gpu-node-2", "", T0)).isEmpty();
    assertThat(sessions.take("gpu-node-1", "", T0)).as("a node holding its place takes none again").isEmpty();
    assertThat(sessions.take("gpu-node-3", "", T0)).get().extracting(Refusal::detail)
        .isEqualTo("2 of 2 BMC sessions are open");

    FleetGate gate = gate();
    gate.showing(limits);
    assertThat(gate.snapshot().limits()).filteredOn(l -> l.limit().equals(NAME)).singleElement()
        .satisfies(l -> assertThat(List.of(l.used(), l.allowed())).containsExactly(2, 2));

    sessions.release("gpu-node-1");
    assertThat(sessions.take("gpu-node-3", "", T0)).as("a place given back is taken").isEmpty();
    assertThat(gate.snapshot().limits()).filteredOn(l -> l.limit().equals(NAME)).extracting(LimitUsage::used)
        .containsExactly(2);
  }

  @Test
  void aRowIsNamedOnceAndAnUnknownNameSaysWhichRowsThereAre() {
    StepLimits limits = StepLimits.onlyReplacing(ReplaceLimit.NONE).with(NAME, new BmcSessions(1));
    assertThatThrownBy(() -> limits.with(NAME, new BmcSessions(3))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step limit max_bmc_sessions is a row already");
    assertThatThrownBy(() -> limits.row("max_pdus")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no step limit max_pdus (rows: max_draining, preflight.max_concurrent, max_bmc_sessions)");
    assertThat(limits.drains()).isSameAs(limits.row(StepLimits.DRAINS.limit()));
  }

  private static FleetGate gate() throws FleetStore.FleetStoreException {
    List<NodeInfo> fleet = new ArrayList<>();
    FleetGate g = new FleetGate(new SafetyLimits(new CountOrPercent(10, true), Rate.parse("10/1h").value(), 5,
        Duration.ofMinutes(10), Optional.empty(), Duration.ofHours(1)), new InMemoryFleetStore(), () -> fleet,
        new AtomicLong()::incrementAndGet, SafetyListener.NONE, new MutableClock(T0));
    g.load();
    return g;
  }
}
