package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.PastEpisode;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FleetGateTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryFleetStore store = new InMemoryFleetStore();
  private final List<NodeInfo> fleet = new ArrayList<>();
  private FleetGate gate;
  /** The test edits the fleet list in place: recount on every check. */
  private static final AtomicLong EVERY_CALL = new AtomicLong();

  private static NodeInfo node(String name) {
    return NodeInfo.named(name, Map.of("nvidia.com/gpu.present", "true"));
  }

  private FleetGate gate(String maxUnavailable, String rate, int breakerNodes, Optional<Duration> autoReset) {
    FleetGate g = new FleetGate(new SafetyLimits(CountOrPercent.parse(maxUnavailable).value(), Rate.parse(rate).value(), breakerNodes,
        Duration.ofMinutes(10), autoReset, Duration.ofHours(1)), store, () -> List.copyOf(fleet), EVERY_CALL::incrementAndGet,
        SafetyListener.NONE, clock);
    try {
      g.load();
    } catch (FleetStore.FleetStoreException e) {
      throw new AssertionError(e);
    }
    return g;
  }

  private Optional<Refusal> check(String node) {
    return gate.check(candidate(node, "gpu-hardware-xid"));
  }

  private static Candidate candidate(String node, String playbook) {
    return new Candidate(node(node), playbook, true, Optional.empty(), Optional.empty());
  }

  /** Admits and settles a quarantine that took the node out of service. */
  private void started(String node, String playbook) {
    Candidate c = candidate(node, playbook);
    assertThat(gate.reserve(c)).isEmpty();
    gate.settle(c, true);
  }

  @BeforeEach
  void twentyNodes() {
    IntStream.range(0, 20).forEach(i -> fleet.add(node("n" + i)));
    gate = gate("10%", "3/1h", 5, Optional.empty());
  }

  /**
   * A thousand-node event must not cost a ConfigMap write a start, each encoding every start so far: one write is in
   * flight, the next starts no sooner than the spacing after it and stores every start made meanwhile.
   */
  @Test
  void theStartsOfABurstAreStoredAFewWritesAtATimeEachSpacedFromTheLast() throws Exception {
    IntStream.range(20, 200).forEach(i -> fleet.add(node("n" + i)));
    List<Long> writes = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch firstHeld = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FleetStore slow = new FleetStore() {
      @Override
      public FleetState load() {
        return store.load();
      }

      @Override
      public void save(FleetState state) {
        writes.add(System.nanoTime());
        if (writes.size() == 1) {
          firstHeld.countDown();
          waitFor(release);
        }
        store.save(state);
      }

      @Override
      public void announce(String reason, String message) {
        store.announce(reason, message);
      }
    };
    ExecutorService background = Executors.newSingleThreadExecutor();
    try {
      FleetGate g = new FleetGate(new SafetyLimits(new CountOrPercent(100, true), Rate.parse("1000/1h").value(), 1000,
          Duration.ofMinutes(10), Optional.empty(), Duration.ofHours(1)), slow, SelectedFleet.countedWhole(() -> List.copyOf(fleet),
          EVERY_CALL::incrementAndGet), SafetyListener.NONE, clock, background);
      g.load();
      start(g, 0);
      firstHeld.await();
      for (int i = 1; i < 150; i++) {
        start(g, i); // while the first write is in flight
      }
      release.countDown();
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> store.load().starts().size() == 150);
      assertThat(writes).as("the first start's write, then one for the 149 made while it was in flight").hasSize(2);
      assertThat(writes.get(1) - writes.get(0)).as("spaced from the one before")
          .isGreaterThanOrEqualTo(FleetGate.WRITE_SPACING.toNanos());
    } finally {
      background.shutdownNow();
    }
  }

  private static void start(FleetGate g, int i) {
    Candidate c = candidate("n" + i, "gpu-hardware-xid");
    assertThat(g.reserve(c)).isEmpty();
    g.settle(c, true);
  }

  private static void waitFor(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void startsAndTheBreakerAreStoredAfterTheCallerReturnsAndABurstCostsOneWrite() throws Exception {
    List<Runnable> later = new ArrayList<>();
    int[] writes = {0};
    FleetStore counting = new FleetStore() {
      @Override
      public FleetState load() {
        return store.load();
      }

      @Override
      public void save(FleetState state) {
        writes[0]++;
        store.save(state);
      }

      @Override
      public void announce(String reason, String message) {
        store.announce(reason, message);
      }
    };
    FleetGate g = new FleetGate(new SafetyLimits(new CountOrPercent(100, true), Rate.parse("100/1h").value(), 5, Duration.ofMinutes(10),
        Optional.empty(), Duration.ofHours(1)), counting, SelectedFleet.countedWhole(() -> List.copyOf(fleet), EVERY_CALL::incrementAndGet),
        SafetyListener.NONE, clock, later::add);
    g.load();
    for (int i = 0; i < 3; i++) {
      Candidate c = candidate("n" + i, "gpu-hardware-xid");
      assertThat(g.reserve(c)).isEmpty();
      g.settle(c, true);
    }
    Map<String, Instant> storm = new HashMap<>();
    IntStream.range(0, 6).forEach(i -> storm.put("n" + i, T0));
    g.observe(storm);
    assertThat(writes[0]).as("nothing stored on the caller's thread").isZero();
    assertThat(store.announcements()).isEmpty();
    assertThat(g.check(candidate("n9", "gpu-hardware-xid"))).map(Refusal::reason).contains(Reason.BREAKER_OPEN);

    new ArrayList<>(later).forEach(Runnable::run);
    assertThat(writes[0]).as("three starts and the breaker in one write").isEqualTo(1);
    assertThat(store.load().starts()).hasSize(3);
    assertThat(store.load().breaker().open()).isTrue();
    assertThat(store.announcements()).singleElement().asString().startsWith("RemediationBreakerOpen");
  }

  @Test
  void anUnloadedGateRefusesEverything() {
    FleetGate cold = new FleetGate(new SafetyLimits(new CountOrPercent(10, true), Rate.parse("3/1h").value(), 5,
        Duration.ofMinutes(10), Optional.empty(), Duration.ofHours(1)), store, () -> fleet, EVERY_CALL::incrementAndGet,
        SafetyListener.NONE, clock);
    assertThat(cold.check(new Candidate(node("n1"), "p", true, Optional.empty(), Optional.empty())))
        .map(Refusal::reason).contains(Reason.SAFETY_STATE_UNAVAILABLE);
  }

  @Test
  void maxUnavailableCountsNodesWhoeverMadeThemUnavailable() {
    // 10% of 20 = 2: one NotReady node and one cordoned by a human leave no room.
    fleet.set(0, new NodeInfo("n0", fleet.get(0).labels(), Map.of(), List.of(), false,
        List.of(new NodeCondition("Ready", "False", "KubeletNotReady", "", null, null)), List.of(), "", "", NodeLedger.EMPTY, Optional.empty()));
    assertThat(check("n5")).isEmpty();
    fleet.set(1, new NodeInfo("n1", fleet.get(1).labels(), Map.of(), List.of(), true, fleet.get(1).conditions(), List.of(), "", "",
        NodeLedger.EMPTY, Optional.empty()));
    assertThat(check("n5")).map(Refusal::reason).contains(Reason.MAX_UNAVAILABLE);
    assertThat(check("n5").orElseThrow().detail()).isEqualTo("2 of 20 selected nodes are unavailable; max_unavailable 10% allows 2");
  }

  @ParameterizedTest(name = "{0} of {1} nodes allows {2}")
  @CsvSource({"10%, 19, 1", "10%, 9, 0", "33%, 10, 3", "50%, 7, 3", "100%, 3, 3", "0%, 50, 0", "3, 50, 3"})
  void percentagesRoundDown(String budget, int nodes, int allowed) {
    assertThat(CountOrPercent.parse(budget).value().of(nodes)).isEqualTo(allowed);
  }

  @Test
  void fleetRateLimitCountsStartsInTheSlidingWindow() {
    for (int i = 0; i < 3; i++) {
      assertThat(check("n" + i)).isEmpty();
      started("n" + i, "gpu-hardware-xid");
      clock.advance(Duration.ofMinutes(10));
    }
    assertThat(check("n9")).map(Refusal::reason).contains(Reason.RATE_LIMITED);
    clock.advance(Duration.ofMinutes(31));   // the first start (at T0) leaves the 1h window
    assertThat(check("n9")).isEmpty();
  }

  @Test
  void playbookRateLimitComesOnTopOfTheFleetOne() {
    gate = gate("100%", "100/1h", 50, Optional.empty());
    started("n1", "remap");
    Candidate c = new Candidate(node("n2"), "remap", true, Optional.of(Rate.parse("1/1d").value()), Optional.empty());
    assertThat(gate.check(c)).map(Refusal::detail)
        .contains("playbook remap rate_limit 1/24h used: 1 quarantines started in the last 24h");
  }

  @Test
  void cooldownFollowsTheLastRelease() {
    NodeLedger released = NodeLedger.of(Map.of(), Map.of(), List.of(
        new PastEpisode("fp", T0.minusSeconds(7200), "gpu-hardware-xid", T0.minusSeconds(7200), T0.minusSeconds(600),
            "gpu-hardware-xid")));
    NodeInfo n = new NodeInfo("n3", node("n3").labels(), Map.of(), List.of(), false, node("n3").conditions(), List.of(), "", "",
        released, Optional.empty());
    Candidate c = new Candidate(n, "gpu-hardware-xid", true, Optional.empty(), Optional.empty());
    assertThat(gate.check(c)).map(Refusal::reason).contains(Reason.COOLDOWN);
    assertThat(gate.check(new Candidate(n, "gpu-hardware-xid", true, Optional.empty(), Optional.of(Duration.ofMinutes(5)))))
        .isEmpty();
    assertThat(gate.check(new Candidate(n, "other-playbook", true, Optional.empty(), Optional.empty()))).isEmpty();
  }

  @Test
  void pauseRefusesUntilItExpires() throws Exception {
    gate.pause("rack 7 maintenance", T0.plusSeconds(3600), "test");
    assertThat(check("n1")).map(Refusal::reason).contains(Reason.PAUSED);
    clock.advance(Duration.ofMinutes(61));
    assertThat(check("n1")).isEmpty();
  }

  @Test
  void breakerOpensWhenMoreNodesThanTheThresholdStartFiringWithinTheWindow() {
    Map<String, Instant> five = new HashMap<>();
    IntStream.range(0, 5).forEach(i -> five.put("n" + i, T0));
    gate.observe(five);
    assertThat(check("n1")).isEmpty();
    gate.observe(Map.of("n5", T0));   // a sixth node in a later webhook: 6 > 5
    assertThat(check("n1")).map(Refusal::reason).contains(Reason.BREAKER_OPEN);
    assertThat(store.announcements()).singleElement().asString().startsWith("RemediationBreakerOpen: Storm breaker opened: "
        + "6 nodes started firing remediation alerts within 10m of each other (more than 5): n0, n1, n2, n3, n4, n5");
  }

  @Test
  void aStormThatStartedTwoDaysAgoAndArrivesLateTripsTheBreakerAsALiveOneDoes() {
    Map<String, Instant> replayed = new HashMap<>();
    IntStream.range(0, 10).forEach(i -> replayed.put("n" + i, T0.minus(Duration.ofDays(2)).plusSeconds(i * 20)));
    gate.observe(replayed);
    assertThat(check("n11")).map(Refusal::reason).contains(Reason.BREAKER_OPEN);
  }

  @Test
  void aSlowTrickleOfOldIndependentFaultsIsNotAStorm() {
    // 15 faults that started an hour apart over the last two days, all delivered now, then a live one.
    Map<String, Instant> trickle = new HashMap<>();
    IntStream.range(0, 15).forEach(i -> trickle.put("n" + i, T0.minus(Duration.ofHours(48 - i))));
    gate.observe(trickle);
    gate.observe(Map.of("n15", T0));
    assertThat(check("n15")).isEmpty();
    assertThat(gate.snapshot().breakerNodesInWindow()).isEqualTo(1);
  }

  @Test
  void theLargestGroupOfStartsWithinTheWindowIsTheStorm() {
    // Two groups of 4 nodes 20 minutes apart: neither is more than 5; a fifth and sixth near the second group is.
    Map<String, Instant> two = new HashMap<>();
    IntStream.range(0, 4).forEach(i -> two.put("a" + i, T0.minus(Duration.ofMinutes(30))));
    IntStream.range(0, 4).forEach(i -> two.put("b" + i, T0.minus(Duration.ofMinutes(10))));
    gate.observe(two);
    assertThat(check("n1")).isEmpty();
    gate.observe(Map.of("b4", T0.minus(Duration.ofMinutes(1)), "b5", T0));
    assertThat(check("n1")).map(Refusal::reason).contains(Reason.BREAKER_OPEN);
    assertThat(store.announcements()).singleElement().asString().contains("6 nodes").contains("b0, b1, b2, b3, b4, b5");
  }

  @Test
  void theStormsAlertsResentAfterAResetDoNotReopenItButANewStormDoes() throws Exception {
    Map<String, Instant> storm = new HashMap<>();
    IntStream.range(0, 8).forEach(i -> storm.put("n" + i, T0));
    gate.observe(storm);
    gate.resetBreaker("test");
    clock.advance(Duration.ofMinutes(1));
    gate.observe(storm);   // Alertmanager re-sends what still fires with the next group change
    assertThat(gate.snapshot().breaker().open()).isFalse();
    Map<String, Instant> next = new HashMap<>();
    IntStream.range(8, 14).forEach(i -> next.put("n" + i, T0.plusSeconds(60)));
    gate.observe(next);
    assertThat(gate.snapshot().breaker().open()).isTrue();
  }

  @Test
  void resetClosesTheBreakerAndForgetsTheStorm() throws Exception {
    Map<String, Instant> storm = new HashMap<>();
    IntStream.range(0, 8).forEach(i -> storm.put("n" + i, T0));
    gate.observe(storm);
    assertThat(gate.snapshot().breaker().open()).isTrue();
    gate.resetBreaker("test");
    assertThat(gate.snapshot().breaker().open()).isFalse();
    assertThat(gate.snapshot().breakerNodesInWindow()).isZero();
    assertThat(check("n1")).isEmpty();
  }

  @Test
  void autoResetAfterClosesTheBreakerOnlyWhenConfigured() {
    gate = gate("10%", "3/1h", 1, Optional.of(Duration.ofMinutes(30)));
    gate.observe(Map.of("n1", T0, "n2", T0));
    assertThat(check("n3")).map(Refusal::reason).contains(Reason.BREAKER_OPEN);
    clock.advance(Duration.ofMinutes(29));
    assertThat(check("n3")).map(Refusal::reason).contains(Reason.BREAKER_OPEN);
    assertThat(gate.stopped()).map(Refusal::reason).contains(Reason.BREAKER_OPEN);
    clock.advance(Duration.ofMinutes(1));
    assertThat(gate.stopped()).as("a due auto-reset is left to the check under the lock").isEmpty();
    assertThat(check("n3")).isEmpty();
  }

  @Test
  void stoppedNamesAnUnloadedStateAPauseAndTheBreakerAndNothingElse() throws Exception {
    assertThat(gate.stopped()).isEmpty();
    gate.pause("driver upgrade", T0.plusSeconds(600), "test");
    assertThat(gate.stopped()).map(Refusal::reason).contains(Reason.PAUSED);
    gate.resume(Optional.empty());
    gate.observe(Map.of("n1", T0, "n2", T0, "n3", T0, "n4", T0, "n5", T0, "n6", T0));
    Optional<Refusal> open = gate.stopped();
    assertThat(open).map(Refusal::reason).contains(Reason.BREAKER_OPEN);
    assertThat(gate.stopped().orElseThrow()).as("built once per opening").isSameAs(open.orElseThrow());
    gate.unload();
    assertThat(gate.stopped()).map(Refusal::reason).contains(Reason.SAFETY_STATE_UNAVAILABLE);
  }

  @Test
  void stateSurvivesAReloadFromTheStore() throws Exception {
    gate.observe(Map.of("n1", T0, "n2", T0, "n3", T0, "n4", T0, "n5", T0, "n6", T0));
    gate.pause("why", T0.plusSeconds(600), "test");
    FleetGate next = gate("10%", "3/1h", 5, Optional.empty());
    assertThat(next.snapshot().breaker().open()).isTrue();
    assertThat(next.snapshot().pause()).isPresent();
  }

  @Test
  void aReservationHoldsItsPlaceInTheBudgetUntilSettled() {
    Candidate first = candidate("n1", "gpu-hardware-xid");
    Candidate second = candidate("n2", "gpu-hardware-xid");
    assertThat(gate.reserve(first)).isEmpty();
    assertThat(gate.reserve(second)).isEmpty();
    assertThat(check("n3")).as("two places of 10% of 20 are reserved, none written yet").map(Refusal::detail)
        .contains("2 of 20 selected nodes are unavailable or being quarantined; max_unavailable 10% allows 2");
    gate.settle(second, false); // its write failed: the place is given back, no start counted
    assertThat(check("n3")).isEmpty();
  }

  @Test
  void aSettledReservationCountsOnceWhenTheCacheShowsItsNodeOutOfService() {
    Candidate first = candidate("n1", "gpu-hardware-xid");
    assertThat(gate.reserve(first)).isEmpty();
    fleet.set(1, new NodeInfo("n1", fleet.get(1).labels(), Map.of(), List.of(), true, fleet.get(1).conditions(), List.of(), "", "",
        NodeLedger.EMPTY, Optional.empty())); // our cordon reached the cache before the reservation settled
    assertThat(check("n3")).as("n1 counted once, not as unavailable and reserved").isEmpty();
    gate.settle(first, true);
    assertThat(check("n3")).isEmpty();
    assertThat(gate.snapshot().unavailableNodes()).isEqualTo(1);
  }

  @Test
  void reservationsCountAgainstTheRateLimitAndOnlySettledStartsAreStored() {
    Candidate a = candidate("n1", "gpu-hardware-xid");
    Candidate b = candidate("n2", "gpu-hardware-xid");
    Candidate c = candidate("n3", "gpu-hardware-xid");
    gate = gate("100%", "3/1h", 50, Optional.empty());
    assertThat(gate.reserve(a)).isEmpty();
    assertThat(gate.reserve(b)).isEmpty();
    assertThat(gate.reserve(c)).isEmpty();
    assertThat(check("n4")).map(Refusal::reason).contains(Reason.RATE_LIMITED);
    gate.settle(a, true);
    gate.settle(b, false);
    gate.settle(c, true);
    assertThat(check("n4")).isEmpty();
    assertThat(store.load().starts()).hasSize(2);
  }

  @Test
  void aReplacementIsStoredBeforeItIsAdmittedAndOneThatCannotBeStoredIsRefusedButStaysCounted() throws Exception {
    AtomicBoolean down = new AtomicBoolean();
    List<FleetState> saved = new ArrayList<>();
    FleetStore flaky = new FleetStore() {
      @Override
      public FleetState load() {
        return FleetState.EMPTY;
      }

      @Override
      public void save(FleetState next) throws FleetStoreException {
        if (down.get()) {
          throw new FleetStoreException("ConfigMap write timed out", null);
        }
        saved.add(next);
      }

      @Override
      public void announce(String reason, String message) {}
    };
    FleetGate g = new FleetGate(new SafetyLimits(new CountOrPercent(10, true), Rate.parse("10/1h").value(), 5, Duration.ofMinutes(10),
        Optional.empty(), Duration.ofHours(1), Rate.parse("2/24h").value()), flaky, () -> List.copyOf(fleet),
        EVERY_CALL::incrementAndGet, SafetyListener.NONE, clock);
    g.load();
    assertThat(g.admitReplacement("gpu-node-1")).isEmpty();
    assertThat(saved).singleElement().satisfies(st -> assertThat(st.replacements()).containsExactly(T0));
    down.set(true);
    assertThat(g.admitReplacement("gpu-node-2")).hasValueSatisfying(r -> {
      assertThat(r.reason()).isEqualTo(Reason.SAFETY_STATE_UNAVAILABLE);
      assertThat(r.detail()).contains("ConfigMap write timed out");
    });
    down.set(false);
    assertThat(g.admitReplacement("gpu-node-3")).as("the unstored admission still counts: fail closed")
        .hasValueSatisfying(r -> assertThat(r.detail()).isEqualTo("replace_rate_limit 2/24h used up: 2 replacements within 24h"));
  }

  @Test
  void everyLimitThatCountsTheFleetReportsItsUsageAsARowInItsOrder() {
    started("n1", "gpu-hardware-xid");
    started("n2", "gpu-hardware-xid");
    assertThat(gate.admitReplacement("n3")).isEmpty();
    assertThat(gate.snapshot().limits()).extracting(LimitUsage::limit, LimitUsage::used, LimitUsage::allowed)
        .containsExactly(tuple("max_unavailable", 0, 2), tuple("rate_limit", 2, 3), tuple("replace_rate_limit", 1, 2),
            tuple("max_unavailable_gpus", 0, 0)); // 20 nodes nothing counts (no slice, label or capacity): never 8 each
    assertThat(gate.snapshot().limits().get(3).detail()).contains("20 node(s) whose GPUs cannot be counted (gpu_count_unknown)");
    assertThat(gate.snapshot().limits().get(1).left()).isEqualTo(1);
  }

  @Test
  void theLimitsAreOneRowEachAndTheFirstThatRefusesNamesTheDecision() {
    assertThat(FleetLimits.ROWS).extracting(l -> l.getClass().getSimpleName()).containsExactly("DomainIncidentLimit",
        "MaxUnavailableLimit",
        "DomainLimit", "FleetRateLimit", "PlaybookRateLimit", "CooldownLimit");
    // One start uses up rate_limit 1/1h; then two nodes cordoned by someone else fill max_unavailable 10% of 20: both
    // would refuse the next, and the budget, the earlier row, names the decision.
    gate = gate("10%", "1/1h", 5, Optional.empty());
    started("n2", "gpu-hardware-xid");
    for (int i = 0; i < 2; i++) {
      fleet.set(i, new NodeInfo("n" + i, fleet.get(i).labels(), Map.of(), List.of(), true, fleet.get(i).conditions(), List.of(),
          "", "", NodeLedger.EMPTY, Optional.empty()));
    }
    assertThat(check("n3")).get().extracting(Refusal::reason).isEqualTo(Reason.MAX_UNAVAILABLE);
    fleet.set(0, node("n0"));
    assertThat(check("n3")).as("the budget has room again: the rate limit speaks").get().extracting(Refusal::reason)
        .isEqualTo(Reason.RATE_LIMITED);
  }
}
