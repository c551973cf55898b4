package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Fleets;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Playbooks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafetyEngineTest {
  private final MutableClock clock = new MutableClock(Alerts.STARTS.plusSeconds(30));
  private static final PlaybookSet SHIPPED = Playbooks.immediate();
  @TempDir Path dir;

  private static Alert xid(int node, Instant startsAt) {
    Alert a = Alerts.xid("gpu-node-" + node, "79");
    return new Alert(a.status(), a.labels(), a.annotations(), startsAt, Optional.empty(), "", a.fingerprint());
  }

  private static boolean quarantined(InMemoryCluster c, int node) {
    return c.node("gpu-node-" + node).orElseThrow().ledger().holdsChanges();
  }

  @Test
  void aStormPayloadOf200NodesOpensTheBreakerAndQuarantinesNone() {
    InMemoryCluster cluster = Fleets.nodes(1000);
    InMemoryFleetStore store = Fleets.store();
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("10%", "10/1h", 5, "1h"), store, clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    Alert[] storm = IntStream.range(0, 200).mapToObj(i -> xid(i, Alerts.STARTS)).toArray(Alert[]::new);

    WebhookResult result = engine.handle(Alerts.message(storm));

    assertThat(result.decisions()).hasSize(200).allSatisfy(d -> assertThat(d.reason()).isEqualTo(Reason.BREAKER_OPEN));
    assertThat(IntStream.range(0, 1000).filter(i -> quarantined(cluster, i))).isEmpty();
    assertThat(cluster.events()).isEmpty();
    assertThat(gate.snapshot().breaker().open()).isTrue();
    assertThat(store.announcements()).hasSize(1);
  }

  @Test
  void aStormSplitOverWebhooksOpensTheBreakerAsSoonAsTheCountPassesTheThreshold() {
    InMemoryCluster cluster = Fleets.nodes(100);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("50%", "100/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    List<Reason> reasons = new ArrayList<>();
    for (int payload = 0; payload < 4; payload++) {
      engine.handle(Alerts.message(xid(payload * 2, Alerts.STARTS), xid(payload * 2 + 1, Alerts.STARTS)))
          .decisions().forEach(d -> reasons.add(d.reason()));
      clock.advance(Duration.ofMinutes(1));
    }
    // 2, 4: below 5; the third webhook brings 6 nodes: none of its nodes is quarantined.
    assertThat(reasons).containsExactly(Reason.ACTIONS_APPLIED, Reason.ACTIONS_APPLIED, Reason.ACTIONS_APPLIED,
        Reason.ACTIONS_APPLIED, Reason.BREAKER_OPEN, Reason.BREAKER_OPEN, Reason.BREAKER_OPEN, Reason.BREAKER_OPEN);
    assertThat(IntStream.range(0, 8).filter(i -> quarantined(cluster, i))).containsExactly(0, 1, 2, 3);
  }

  @Test
  void aBacklogOf200AlertsThatStartedTwoDaysAgoOpensTheBreakerAndQuarantinesNone() {
    InMemoryCluster cluster = Fleets.nodes(1000);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("10%", "10/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    Instant twoDaysAgo = Alerts.STARTS.minus(Duration.ofDays(2));
    Alert[] backlog = IntStream.range(0, 200).mapToObj(i -> xid(i, twoDaysAgo.plusSeconds(i % 60))).toArray(Alert[]::new);

    WebhookResult result = engine.handle(Alerts.message(backlog));

    assertThat(result.decisions()).allSatisfy(d -> assertThat(d.reason()).isEqualTo(Reason.BREAKER_OPEN));
    assertThat(IntStream.range(0, 1000).filter(i -> quarantined(cluster, i))).isEmpty();
  }

  @Test
  void aBacklogSplitOver20WebhooksInRandomOrderOpensTheBreakerOnceMoreThanTheThresholdArrived() {
    InMemoryCluster cluster = Fleets.nodes(1000);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("10%", "100/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    List<Alert> backlog = new ArrayList<>(IntStream.range(0, 200)
        .mapToObj(i -> xid(i, Alerts.STARTS.minus(Duration.ofHours(30)).plusSeconds(i))).toList());
    Collections.shuffle(backlog, new Random(20261123));
    int acted = 0;
    for (int webhook = 0; webhook < 20; webhook++) {
      for (Decision d : engine.handle(Alerts.message(backlog.subList(webhook * 10, webhook * 10 + 10).toArray(Alert[]::new)))
          .decisions()) {
        acted += d.reason() == Reason.ACTIONS_APPLIED ? 1 : 0;
      }
      clock.advance(Duration.ofSeconds(7));
    }
    // The first webhook brings 10 nodes: more than 5 before any is acted on.
    assertThat(acted).isZero();
    assertThat(gate.snapshot().breaker().open()).isTrue();
  }

  @Test
  void resendsOf200EpisodesTheLedgerKnowsNeverOpenTheBreaker() {
    InMemoryCluster cluster = Fleets.nodes(1000);
    // A leader with a generous breaker quarantined 200 nodes that failed together (a human judged it real).
    FleetGate generous = Fleets.gate(cluster, Fleets.limits("50%", "1000/1h", 1000, "1h"), Fleets.store(), clock);
    Alert[] episodes = IntStream.range(0, 200).mapToObj(i -> xid(i, Alerts.STARTS)).toArray(Alert[]::new);
    Fleets.engine(cluster, SHIPPED, generous, false, d -> { }, clock).handle(Alerts.message(episodes));
    assertThat(IntStream.range(0, 200).filter(i -> quarantined(cluster, i))).hasSize(200);

    // The next leader, with the default-like breaker, receives Alertmanager's re-sends of all of them.
    clock.advance(Duration.ofMinutes(5));
    FleetGate strict = Fleets.gate(cluster, Fleets.limits("50%", "1000/1h", 5, "1h"), Fleets.store(), clock);
    WebhookResult resent = Fleets.engine(cluster, SHIPPED, strict, false, d -> { }, clock).handle(Alerts.message(episodes));

    assertThat(resent.decisions()).allSatisfy(d -> assertThat(d.reason()).isEqualTo(Reason.DUPLICATE_EPISODE));
    assertThat(strict.snapshot().breaker().open()).isFalse();
  }

  @Test
  void resetReplaysNoBacklogAndActsOnlyOnAlertsStillFiring() throws Exception {
    InMemoryCluster cluster = Fleets.nodes(100);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("50%", "100/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    Alert[] storm = IntStream.range(0, 20).mapToObj(i -> xid(i, Alerts.STARTS)).toArray(Alert[]::new);
    engine.handle(Alerts.message(storm));

    // The storm's cause is fixed: 19 of the alerts resolve while the breaker is open, one GPU really failed.
    Alert[] resolved = IntStream.range(1, 20).mapToObj(i -> Alerts.resolved(storm[i])).toArray(Alert[]::new);
    engine.handle(Alerts.message(resolved));
    gate.resetBreaker("test");
    assertThat(IntStream.range(0, 20).filter(i -> quarantined(cluster, i))).as("the reset itself acts on nothing").isEmpty();

    // Alertmanager re-sends what still fires; the reset acknowledged the storm, so it is one node, acted on.
    clock.advance(Duration.ofMinutes(11));
    Decision d = engine.handle(Alerts.message(storm[0])).decisions().get(0);
    assertThat(d.reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(IntStream.range(0, 20).filter(i -> quarantined(cluster, i))).containsExactly(0);
  }

  @Test
  void fiftyConcurrentCopiesOfOneAlertProduceOneQuarantine() throws Exception {
    InMemoryCluster cluster = Fleets.nodes(10);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("50%", "10/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    Alert alert = xid(3, Alerts.STARTS);
    ExecutorService pool = Executors.newFixedThreadPool(50);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Decision>> futures = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      futures.add(pool.submit(() -> {
        go.await();
        return engine.handle(Alerts.message(alert)).decisions().get(0);
      }));
    }
    go.countDown();
    List<Reason> reasons = new ArrayList<>();
    for (Future<Decision> f : futures) {
      reasons.add(f.get().reason());
    }
    pool.shutdown();
    String seen = reasons.stream().collect(Collectors.groupingBy(r -> r, TreeMap::new, Collectors.counting())).toString();
    assertThat(reasons).as(seen).filteredOn(r -> r == Reason.ACTIONS_APPLIED).hasSize(1);
    assertThat(reasons).as(seen).filteredOn(r -> r == Reason.DUPLICATE_EPISODE).hasSize(49);
    await().atMost(Duration.ofSeconds(10)).until(() -> !cluster.events().isEmpty()); // written after the answer
    assertThat(cluster.events()).hasSize(1);
    assertThat(gate.snapshot().rateUsed()).isEqualTo(1);
  }

  @Test
  void aNewStartsAtIsANewEpisode() {
    InMemoryCluster cluster = Fleets.nodes(10);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("50%", "10/1h", 5, "1m"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    Alert first = xid(1, Alerts.STARTS);
    engine.handle(Alerts.message(first));
    engine.handle(Alerts.message(Alerts.resolved(first)));
    clock.advance(Duration.ofMinutes(5));
    Alert again = xid(1, Alerts.STARTS.plusSeconds(300));
    assertThat(engine.handle(Alerts.message(again)).decisions().get(0).reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(engine.handle(Alerts.message(first)).decisions().get(0).reason()).as("the old episode, re-sent late")
        .isEqualTo(Reason.DUPLICATE_EPISODE);
  }

  @Test
  void theNthEpisodeWithinTheWindowEscalates() throws Exception {
    Path f = dir.resolve("p.yaml");
    Files.writeString(f, String.join("\n",
        "playbooks:",
        "  - name: flaky",
        "    match: ['alertname=\"GpuXidHardwareError\"']",
        "    cooldown: 1m",
        "    escalate: {after: 3, within: 1d, to: replace}",
        "    actions: [{cordon: {}}]",
        "    on_resolved: [{uncordon: {}}]",
        "  - name: replace",
        "    match: ['alertname=\"NeverMatches\"']",
        "    actions: [{cordon: {}}, {label: {key: gpu-remediator.io/replace, value: \"true\"}}]", ""));
    PlaybookSet set = PlaybookLoader.load(List.of(f)).set();
    InMemoryCluster cluster = Fleets.nodes(10);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("50%", "10/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, set, gate, false, d -> { }, clock);
    List<String> playbooks = new ArrayList<>();
    for (int episode = 0; episode < 3; episode++) {
      Alert a = xid(2, Alerts.STARTS.plusSeconds(episode * 600L));
      Decision d = engine.handle(Alerts.message(a)).decisions().get(0);
      playbooks.add(d.playbook());
      engine.handle(Alerts.message(Alerts.resolved(a)));
      clock.advance(Duration.ofMinutes(10));
    }
    assertThat(playbooks).containsExactly("flaky", "flaky", "replace");
    assertThat(cluster.node("gpu-node-2").orElseThrow().labels()).containsEntry("gpu-remediator.io/replace", "true");
    assertThat(cluster.node("gpu-node-2").orElseThrow().unschedulable()).as("replace has no on_resolved").isTrue();
  }

  @Test
  void aDryRunNamesTheLimitThatWouldHaveBlockedIt() {
    InMemoryCluster cluster = Fleets.nodes(10);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("5%", "10/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, true, d -> { }, clock);
    Decision d = engine.handle(Alerts.message(xid(1, Alerts.STARTS))).decisions().get(0);
    assertThat(d.outcome()).isEqualTo(Outcome.DRY_RUN);
    assertThat(d.detail()).isEqualTo("would be refused: max_unavailable (0 of 10 selected nodes are unavailable;"
        + " max_unavailable 5% allows 0)");
    assertThat(d.wouldBeRefused()).map(r -> r.reason()).contains(Reason.MAX_UNAVAILABLE);
    assertThat(d.actions()).isNotEmpty().allSatisfy(a -> assertThat(a.outcome()).isEqualTo(StepOutcome.DRY_RUN));
  }

  @Test
  void releasesAreNeverRefused() throws Exception {
    InMemoryCluster cluster = Fleets.nodes(10);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("50%", "10/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, SHIPPED, gate, false, d -> { }, clock);
    Alert a = xid(4, Alerts.STARTS);
    engine.handle(Alerts.message(a));
    gate.pause("maintenance", clock.instant().plusSeconds(3600), "test");
    assertThat(engine.handle(Alerts.message(Alerts.resolved(a))).decisions().get(0).reason())
        .isEqualTo(Reason.RESOLVED_ACTIONS_APPLIED);
    assertThat(quarantined(cluster, 4)).isFalse();
    assertThat(engine.handle(Alerts.message(xid(5, Alerts.STARTS))).decisions().get(0).reason()).isEqualTo(Reason.PAUSED);
  }

  @Test
  void anEventOnlyPlaybookIsNotAQuarantine() throws Exception {
    Path f = dir.resolve("note.yaml");
    Files.writeString(f, "playbooks:\n  - name: note\n    match: ['alertname=\"GpuThermal\"']\n"
        + "    actions: [{event: {reason: Hot, message: hot}}]\n");
    InMemoryCluster cluster = Fleets.nodes(5);
    FleetGate gate = Fleets.gate(cluster, Fleets.limits("0%", "0/1h", 5, "1h"), Fleets.store(), clock);
    RemediationEngine engine = Fleets.engine(cluster, PlaybookLoader.load(List.of(f)).set(), gate, false, d -> { }, clock);
    Decision d = engine.handle(Alerts.message(Alerts.alert(AlertStatus.FIRING, "GpuThermal", "abc", Map.of("node", "gpu-node-1"))))
        .decisions().get(0);
    assertThat(d.reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    NodeInfo n = cluster.node("gpu-node-1").orElseThrow();
    assertThat(FleetGate.isUnavailable(n)).isFalse();
  }
}
