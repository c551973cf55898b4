package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.LedgerFault;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.node.Taint;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.LoadResult;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.ForwardingCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemediationEngineTest {
  private static final Map<String, String> GPU = Map.of("nvidia.com/gpu.present", "true");
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T10:01:00Z"), ZoneOffset.UTC);
  private static final String UNHEALTHY = "gpu-remediator.io/unhealthy";

  @TempDir Path dir;
  private final List<Decision> decided = new ArrayList<>();

  private InMemoryCluster cluster(NodeInfo... nodes) {
    return new InMemoryCluster(List.of(nodes));
  }

  private RemediationEngine engine(InMemoryCluster cluster, boolean dryRun, PlaybookSet set) {
    return EngineBuilder.of(() -> set, cluster, new NodeResolver(List.of("node"),
        LabelSelector.parse("nvidia.com/gpu.present=true").value(), cluster), CLOCK).dryRun(dryRun).listener(decided::add).build();
  }

  private RemediationEngine shipped(InMemoryCluster cluster) {
    return engine(cluster, false, shippedSet());
  }

  private static PlaybookSet shippedSet() {
    LoadResult r = PlaybookLoader.load(List.of(Path.of("src/test/resources/playbooks/immediate")));
    assertThat(r.errors()).isEmpty();
    return r.set();
  }

  private PlaybookSet playbook(String yaml) throws IOException {
    Path f = dir.resolve("p.yaml");
    Files.writeString(f, yaml);
    LoadResult r = PlaybookLoader.load(List.of(f));
    assertThat(r.errors()).isEmpty();
    return r.set();
  }

  private static NodeInfo node(InMemoryCluster c, String name) {
    return c.node(name).orElseThrow();
  }

  @Test
  void aPlaybooksNodeMatchersChooseItByTheLabelsOfTheNodeTheAlertResolvesTo() throws IOException {
    PlaybookSet set = playbook("""
        playbooks:
          - name: metal-pool
            match: ['alertname="GpuXidHardwareError"']
            match_node: ['karpenter.sh/nodepool="metal"']
            dry_run: true
            actions:
              - cordon: {}
          - name: any-pool
            match: ['alertname="GpuXidHardwareError"']
            actions:
              - cordon: {}
        """);
    Map<String, String> metal = new HashMap<>(GPU);
    metal.put("karpenter.sh/nodepool", "metal");
    InMemoryCluster c = cluster(NodeInfo.named("n1", metal), NodeInfo.named("n2", GPU));
    RemediationEngine e = engine(c, false, set);
    Decision onMetal = e.decide(Alerts.xid("n1", "79"));
    Decision elsewhere = e.decide(Alerts.xid("n2", "79"));
    assertThat(onMetal.playbook()).isEqualTo("metal-pool");
    assertThat(onMetal.reason()).isEqualTo(Reason.DRY_RUN_PLAYBOOK);
    assertThat(node(c, "n1").unschedulable()).as("the metal pool only observes").isFalse();
    assertThat(elsewhere.playbook()).isEqualTo("any-pool");
    assertThat(node(c, "n2").unschedulable()).isTrue();
  }

  @Test
  void anEpisodesDurationAndTheIntervalSinceTheNodesPreviousEpisodeAreMeasuredFromTheFaults() throws IOException {
    PlaybookSet set = playbook("""
        playbooks:
          - name: quarantine
            match: ['alertname="GpuXidHardwareError"']
            actions:
              - cordon: {}
            on_resolved:
              - uncordon: {}
        """);
    List<String> measured = new ArrayList<>();
    DecisionListener listener = new DecisionListener() {
      @Override
      public void decided(Decision decision) {}

      @Override
      public void episodeEnded(String playbook, String outcome, String closedBy, double seconds) {
        measured.add(playbook + " " + outcome + " " + seconds);
      }

      @Override
      public void incidentInterval(double seconds) {
        measured.add("interval " + seconds);
      }
    };
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    RemediationEngine e = EngineBuilder.of(() -> set, c, new NodeResolver(List.of("node"),
        LabelSelector.parse("nvidia.com/gpu.present=true").value(), c), CLOCK).listener(listener).build();
    Alert first = Alerts.xid("n1", "79");
    e.decide(first);
    e.decide(Alerts.resolved(first));
    Instant later = first.startsAt().plusSeconds(30);
    e.decide(new Alert(first.status(), first.labels(), first.annotations(), later, Optional.empty(), "", first.fingerprint()));
    assertThat(measured).containsExactly(
        "quarantine released " + Duration.between(first.startsAt(), CLOCK.instant()).toSeconds() + ".0", "interval 30.0");
  }

  /**
   * The watch tells of our ledger write while the webhook is still writing: the loop looks once the write is done; the
   * webhook's Event follows in the background.
   */
  @Test
  void theLoopHearsOfANewEpisodeOnlyOnceItsWebhookHasWrittenTheNode() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    Consumer<String>[] watch = new Consumer[1];
    Cluster watched = new ForwardingCluster(c) {
      @Override
      public <T> T modifyNode(String name, Function<NodeInfo, Cluster.Edited<T>> edit)
          throws ClusterException {
        T result = c.modifyNode(name, edit);
        order.add("node written");
        watch[0].accept(name);
        return result;
      }

      @Override
      public void recordEvent(NodeEvent event) {
        order.add("event " + event.reason());
      }
    };
    PlaybookSet set = shippedSet();
    // The loop's kick, as EpisodeLoop makes it: it looks at a node only holding it, else after its holder.
    NodeExclusion exclusion = new NodeExclusion(node -> watch[0].accept(node));
    watch[0] = node -> {
      if (exclusion.tryEnter(node)) {
        order.add("loop kicked for " + node);
        exclusion.exit(node);
      }
    };
    RemediationEngine e = EngineBuilder.of(() -> set, watched, new NodeResolver(List.of("node"),
        LabelSelector.parse("nvidia.com/gpu.present=true").value(), watched), CLOCK).listener(decided::add)
        .exclusion(exclusion).build();

    e.handle(Alerts.message(Alerts.xid("n1", "79")));
    await().atMost(Duration.ofSeconds(10)).until(() -> order.stream().anyMatch(s -> s.startsWith("event")));
    assertThat(order).filteredOn(s -> !s.startsWith("event")).containsExactly("node written", "loop kicked for n1");

    order.clear();
    watch[0].accept("n1");
    assertThat(order).as("a change by anyone else is passed on at once").containsExactly("loop kicked for n1");
  }

  @Test
  void anInstanceThatNoLongerLeadsWritesNothingAndAsksForARetry() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    PlaybookSet set = shippedSet();
    RemediationEngine deposed = EngineBuilder.of(() -> set, c, new NodeResolver(List.of("node"),
        LabelSelector.parse("nvidia.com/gpu.present=true").value(), c), CLOCK).listener(decided::add).mayWrite(() -> false)
        .build();
    WebhookResult r = deposed.handle(Alerts.message(Alerts.xid("n1", "79")));
    assertThat(r.decisions()).singleElement().satisfies(d -> assertThat(d.reason()).isEqualTo(Reason.NOT_LEADER));
    assertThat(r.shouldRetry()).isTrue();
    assertThat(node(c, "n1")).isEqualTo(NodeInfo.named("n1", GPU));
    assertThat(c.events()).isEmpty();
  }

  @Test
  void quarantinesWithEveryActionOfThePlaybook() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    Decision d = shipped(c).decide(Alerts.xid("n1", "79"));
    assertThat(d.reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(d.actions()).extracting(ActionRecord::type, a -> a.outcome().code()).containsExactly(
        Tuple.tuple("taint", "applied"), Tuple.tuple("cordon", "applied"),
        Tuple.tuple("condition", "applied"), Tuple.tuple("event", "pending"));
    NodeInfo n = node(c, "n1");
    assertThat(n.taints()).containsExactly(new Taint(UNHEALTHY, "xid-79", TaintEffect.NO_SCHEDULE));
    assertThat(n.unschedulable()).isTrue();
    assertThat(n.condition("GpuHealthy").orElseThrow().status()).isEqualTo("False");
    assertThat(n.ledger().episodes()).containsKey(Alerts.xid("n1", "79").fingerprint());
    // The Event is written after the answer, in the background.
    await().atMost(Duration.ofSeconds(10)).until(() -> !c.events().isEmpty());
    assertThat(c.events()).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo("GpuXidHardwareError"));
    assertThat(decided).containsExactly(d);
  }

  @Test
  void repeatingAnAlertChangesNothingMore() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    RemediationEngine e = shipped(c);
    e.decide(Alerts.xid("n1", "79"));
    NodeInfo after = node(c, "n1");
    Decision again = e.decide(Alerts.xid("n1", "79"));
    assertThat(again.reason()).isEqualTo(Reason.DUPLICATE_EPISODE);
    assertThat(again.actions()).isEmpty();
    assertThat(node(c, "n1")).isEqualTo(after);
    await().atMost(Duration.ofSeconds(10)).until(() -> !c.events().isEmpty()); // written after the answer
    assertThat(c.events()).hasSize(1);
  }

  @Test
  void releasesOnResolvedAndRemovesOurLedger() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    RemediationEngine e = shipped(c);
    Alert a = Alerts.xid("n1", "79");
    e.decide(a);
    Decision d = e.decide(Alerts.resolved(a));
    assertThat(d.reason()).isEqualTo(Reason.RESOLVED_ACTIONS_APPLIED);
    NodeInfo n = node(c, "n1");
    assertThat(n.taints()).isEmpty();
    assertThat(n.unschedulable()).isFalse();
    assertThat(n.condition("GpuHealthy").orElseThrow().status()).isEqualTo("True");
    assertThat(n.ledger().holdsChanges()).isFalse();
    assertThat(n.ledger().episodes()).isEmpty();
    assertThat(n.ledger().history()).singleElement().satisfies(p -> assertThat(p.playbook()).isEqualTo("gpu-hardware-xid"));
  }

  @Test
  void aCordonThatWasThereBeforeUsStays() {
    NodeInfo cordoned = NodeInfo.named("n1", GPU);
    cordoned = new NodeInfo("n1", GPU, Map.of(), List.of(), true, cordoned.conditions(), List.of(), "", "", cordoned.ledger(),
        cordoned.ledgerFault());
    InMemoryCluster c = cluster(cordoned);
    RemediationEngine e = shipped(c);
    Alert a = Alerts.xid("n1", "79");
    assertThat(e.decide(a).actions().get(1).change()).isEqualTo("already cordoned (not by us; stays cordoned on release)");
    Decision release = e.decide(Alerts.resolved(a));
    assertThat(node(c, "n1").unschedulable()).isTrue();
    assertThat(node(c, "n1").taints()).isEmpty();
    assertThat(release.actions().get(1)).isEqualTo(new ActionRecord("uncordon", StepOutcome.UNCHANGED, "cordon: was there before us; left in place"));
  }

  @Test
  void aReleaseKeepsWhatAnotherActiveAlertStillNeeds() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    RemediationEngine e = shipped(c);
    Alert xid = Alerts.xid("n1", "79");
    Alert count = Alerts.alert(AlertStatus.FIRING, "GpuCountDropped", "c0ffee",
        Map.of("node", "n1", "severity", "critical", "remediate", "true"));
    e.decide(xid);
    e.decide(count);
    Decision first = e.decide(Alerts.resolved(xid));
    assertThat(first.actions()).extracting(a -> a.outcome().code()).startsWith("kept", "kept", "kept");
    assertThat(node(c, "n1").unschedulable()).isTrue();
    assertThat(node(c, "n1").taints()).hasSize(1);
    e.decide(Alerts.resolved(count));
    assertThat(node(c, "n1").unschedulable()).isFalse();
    assertThat(node(c, "n1").taints()).isEmpty();
    assertThat(node(c, "n1").ledger().holdsChanges()).isFalse();
    assertThat(node(c, "n1").ledger().episodes()).isEmpty();
  }

  @Test
  void aResolveOfAnAlertThatNeverActedUndoesNothing() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    RemediationEngine e = shipped(c);
    e.decide(Alerts.xid("n1", "79"));
    Alert stranger = Alerts.alert(AlertStatus.RESOLVED, "GpuNvlinkDown", "bead",
        Map.of("node", "n1", "severity", "critical", "remediate", "true"));
    Decision d = e.decide(stranger);
    assertThat(d.actions()).extracting(a -> a.outcome().code()).startsWith("not_ours", "not_ours", "not_ours");
    assertThat(node(c, "n1").unschedulable()).isTrue();
  }

  @Test
  void withoutOnResolvedTheNodeStaysQuarantinedForAHuman() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    RemediationEngine e = shipped(c);
    Alert ecc = Alerts.alert(AlertStatus.FIRING, "GpuEccUncorrectable", "ecc1",
        Map.of("node", "n1", "gpu", "0", "severity", "critical", "remediate", "true"));
    e.decide(ecc);
    assertThat(e.decide(Alerts.resolved(ecc)).reason()).isEqualTo(Reason.NO_ON_RESOLVED);
    assertThat(node(c, "n1").unschedulable()).isTrue();
  }

  @Test
  void applicationXidChangesNothing() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    NodeInfo before = node(c, "n1");
    Decision d = shipped(c).decide(Alerts.alert(AlertStatus.FIRING, "GpuXidApplicationError", "app13",
        Map.of("node", "n1", "xid", "13", "severity", "info")));
    assertThat(d.reason()).isEqualTo(Reason.NO_PLAYBOOK);
    assertThat(node(c, "n1")).isEqualTo(before);
    assertThat(c.events()).isEmpty();
  }

  @Test
  void globalDryRunWritesNothingAndRecordsEachChange() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    NodeInfo before = node(c, "n1");
    Decision d = engine(c, true, shippedSet()).decide(Alerts.xid("n1", "79"));
    assertThat(d.reason()).isEqualTo(Reason.DRY_RUN_GLOBAL);
    assertThat(d.actions()).extracting(a -> a.outcome().code()).containsOnly("dry_run");
    assertThat(d.actions().get(0).change()).isEqualTo("add taint gpu-remediator.io/unhealthy=xid-79:NoSchedule");
    assertThat(node(c, "n1")).isEqualTo(before);
    assertThat(c.events()).isEmpty();
  }

  @Test
  void playbookDryRunWritesNothing() throws IOException {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    NodeInfo before = node(c, "n1");
    Decision d = engine(c, false, playbook("playbooks:\n  - name: p\n    match: ['alertname=~\".+\"']\n    dry_run: true\n"
        + "    actions: [{cordon: {}}]\n")).decide(Alerts.xid("n1", "79"));
    assertThat(d.reason()).isEqualTo(Reason.DRY_RUN_PLAYBOOK);
    assertThat(d.actions()).containsExactly(new ActionRecord("cordon", StepOutcome.DRY_RUN, "cordon (spec.unschedulable=true)"));
    assertThat(node(c, "n1")).isEqualTo(before);
  }

  @Test
  void actionDryRunSkipsOnlyThatAction() throws IOException {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    Decision d = engine(c, false, playbook("playbooks:\n  - name: p\n    match: ['alertname=~\".+\"']\n"
        + "    actions:\n      - taint: {key: gpu-remediator.io/x, effect: NoExecute, dry_run: true}\n      - cordon: {}\n"))
        .decide(Alerts.xid("n1", "79"));
    assertThat(d.reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(d.actions()).extracting(a -> a.outcome().code()).containsExactly("dry_run", "applied");
    assertThat(node(c, "n1").taints()).isEmpty();
    assertThat(node(c, "n1").unschedulable()).isTrue();
    assertThat(node(c, "n1").ledger().claim(ClaimKey.taint("gpu-remediator.io/x", "NoExecute"))).isEmpty();
  }

  @Test
  void everyActionDryRunIsADryRunDecision() throws IOException {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    NodeInfo before = node(c, "n1");
    Decision d = engine(c, false, playbook("playbooks:\n  - name: p\n    match: ['alertname=~\".+\"']\n"
        + "    actions:\n      - cordon: {dry_run: true}\n")).decide(Alerts.xid("n1", "79"));
    assertThat(d.reason()).isEqualTo(Reason.DRY_RUN_ACTION);
    assertThat(node(c, "n1")).isEqualTo(before);
  }

  @Test
  void aTemplateRenderingAnInvalidValueChangesNothing() {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    NodeInfo before = node(c, "n1");
    Decision d = shipped(c).decide(Alerts.xid("n1", "79; rm -rf /"));
    assertThat(d.reason()).isEqualTo(Reason.TEMPLATE_INVALID);
    assertThat(d.detail()).isEqualTo("taint value rendered from \"xid-{{ labels.xid }}\": \"xid-79; rm -rf /\" is not a label"
        + " value (at most 63 of A-Z, a-z, 0-9, '-', '_', '.', starting and ending alphanumeric)");
    assertThat(node(c, "n1")).isEqualTo(before);
    assertThat(c.events()).isEmpty();
  }

  @Test
  void longMessagesAreCutToTheFieldLimit() throws IOException {
    InMemoryCluster c = cluster(NodeInfo.named("n1", GPU));
    Alert a = Alerts.alert(AlertStatus.FIRING, "X", "abc", Map.of("node", "n1", "big", "y".repeat(5000)));
    engine(c, false, playbook("playbooks:\n  - name: p\n    match: ['alertname=\"X\"']\n"
        + "    actions:\n      - event: {reason: Big, message: \"{{ labels.big }}\"}\n")).decide(a);
    await().atMost(Duration.ofSeconds(10)).until(() -> !c.events().isEmpty());
    assertThat(c.events()).singleElement().satisfies(e -> {
      assertThat(e.message()).hasSize(1024).endsWith("...");
    });
  }

  @Test
  void labelsAreSetAndRemovedOnlyWhenOurs() throws IOException {
    NodeInfo labelled = new NodeInfo("n1", Map.of("nvidia.com/gpu.present", "true", "gpu-remediator.io/rma", "human"),
        Map.of(), List.of(), false, List.of(), List.of(), "", "", NodeLedger.EMPTY, Optional.empty());
    InMemoryCluster c = cluster(labelled, NodeInfo.named("n2", GPU));
    RemediationEngine e = engine(c, false, playbook("playbooks:\n  - name: p\n    match: ['alertname=\"X\"']\n"
        + "    actions:\n      - label: {key: gpu-remediator.io/rma, value: \"true\"}\n"
        + "    on_resolved:\n      - unlabel: {key: gpu-remediator.io/rma}\n"));
    for (String n : List.of("n1", "n2")) {
      Alert a = Alerts.alert(AlertStatus.FIRING, "X", "f" + n.charAt(1), Map.of("node", n));
      e.decide(a);
      assertThat(node(c, n).labels()).containsEntry("gpu-remediator.io/rma", n.equals("n1") ? "human" : "true");
      e.decide(Alerts.resolved(a));
    }
    assertThat(node(c, "n1").labels()).containsEntry("gpu-remediator.io/rma", "human");
    assertThat(node(c, "n2").labels()).doesNotContainKey("gpu-remediator.io/rma");
  }

  @Test
  void aNodeWithAnUnreadableLedgerIsNotTouched() {
    NodeInfo broken = new NodeInfo("n1", GPU, Map.of(), List.of(), false, List.of(), List.of(), "", "",
        NodeLedger.EMPTY, Optional.of(new LedgerFault(LedgerFault.Kind.UNREADABLE, "annotation unreadable")));
    InMemoryCluster c = cluster(broken);
    assertThat(shipped(c).decide(Alerts.xid("n1", "79")).reason()).isEqualTo(Reason.NODE_STATE_UNREADABLE);
    assertThat(node(c, "n1")).isEqualTo(broken);
  }
}
