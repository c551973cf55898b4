package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.LedgerFault;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.http.AlertmanagerSilences;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.HeldSilence;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.LocalAlertmanager;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.SignedLedgers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Silences held by episodes, against the real Alertmanager 0.25 from Debian on 127.0.0.1, checked through
 * Alertmanager's own API: a quarantine creates one silence that mutes the node's warning alerts (their state is
 * {@code suppressed}) and never its remediation alerts nor another node's; restarts, renewals and a lost ledger
 * record leave exactly one; the release expires it; an Alertmanager that is down holds nothing up.
 */
class AlertmanagerSilencesTest {
  private static final String NODE = "gpu-node-0";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-xid", """
            - silence: {matchers: ['node="{{ node }}"', 'remediate!="true"'], duration: 1h,
                        comment: "{{ node }} is quarantined by gpu-xid"}
            - drain: {mode: evict, timeout: 30m}
          on_resolved:
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
      """);

  @TempDir Path dir;
  private final Vertx vertx = Vertx.vertx();
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private OutboundPorts ports(URI alertmanager) {
    return new OutboundPorts(new AlertmanagerSilences(vertx, alertmanager, Optional.empty(), OutboundListener.NONE),
        Notifier.NONE, InstanceHealth.NOT_CONFIGURED);
  }

  private ClosedLoopHarness harness(URI alertmanager) {
    ClosedLoopHarness h = new ClosedLoopHarness(dir, PLAYBOOKS, ports(alertmanager), new MutableClock(Instant.now()));
    open.add(h);
    return h;
  }

  private static Alert xid() {
    return Alerts.xid(NODE, "79");
  }

  /** Alerts Alertmanager holds: a warning and a remediation alert on the node, and a warning on another node. */
  private static void firing(LocalAlertmanager am) throws Exception {
    Instant now = Instant.now();
    JsonArray alerts = new JsonArray();
    for (Map<String, String> labels : List.of(
        Map.of("alertname", "GpuThermal", "node", NODE, "severity", "warning"),
        Map.of("alertname", "GpuXidHardwareError", "node", NODE, "severity", "critical", "remediate", "true"),
        Map.of("alertname", "GpuThermal", "node", "gpu-node-1", "severity", "warning"))) {
      alerts.add(new JsonObject().put("labels", new JsonObject(new HashMap<>(labels)))
          .put("startsAt", now.minusSeconds(60).toString()).put("endsAt", now.plus(Duration.ofHours(3)).toString()));
    }
    assertThat(am.post("/api/v2/alerts", alerts.encode())).isEqualTo(200);
  }

  /** The state Alertmanager gives the alert of this name on this node. */
  private static String state(LocalAlertmanager am, String alertname, String node) throws Exception {
    for (Object o : new JsonArray(am.get("/api/v2/alerts"))) {
      JsonObject a = (JsonObject) o;
      JsonObject labels = a.getJsonObject("labels");
      if (alertname.equals(labels.getString("alertname")) && node.equals(labels.getString("node"))) {
        return a.getJsonObject("status").getString("state");
      }
    }
    return "absent";
  }

  private static List<JsonObject> silences(LocalAlertmanager am, String state) throws Exception {
    List<JsonObject> out = new ArrayList<>();
    for (Object o : new JsonArray(am.get("/api/v2/silences"))) {
      JsonObject s = (JsonObject) o;
      if (state.equals(s.getJsonObject("status").getString("state"))) {
        out.add(s);
      }
    }
    return out;
  }

  private static String heldId(Episode e) {
    return e.silenceIds().get(0);
  }

  @Test
  void aQuarantineHoldsOneSilenceThatMutesTheNodesWarningsUntilTheRelease() throws Exception {
    LocalAlertmanager am = new LocalAlertmanager(dir.resolve("am"));
    open.add(am);
    firing(am);
    ClosedLoopHarness h = harness(am.url());
    h.fire(xid());
    h.look(NODE);

    assertThat(silences(am, "active")).singleElement().satisfies(s -> {
      assertThat(s.getString("createdBy")).isEqualTo("gpu-remediator");
      assertThat(s.getString("comment")).startsWith("gpu-node-0 is quarantined by gpu-xid [gpu-remediator ");
      assertThat(s.getJsonArray("matchers")).containsExactly(
          new JsonObject().put("isEqual", true).put("isRegex", false).put("name", "node").put("value", NODE),
          new JsonObject().put("isEqual", false).put("isRegex", false).put("name", "remediate").put("value", "true"));
    });
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(state(am, "GpuThermal", NODE)).isEqualTo("suppressed");
      assertThat(state(am, "GpuXidHardwareError", NODE)).isEqualTo("active");
      assertThat(state(am, "GpuThermal", "gpu-node-1")).isEqualTo("active");
    });
    assertThat(h.decisions(Reason.SILENCE_CREATED)).hasSize(1);
    Episode first = h.episode(NODE);
    assertThat(first.progress().stage()).isIn(Stage.DRAINING, Stage.DRAINED);
    String id = heldId(first);
    assertThat(silences(am, "active").get(0).getString("id")).isEqualTo(id);

    // Looks and a restart in between change nothing.
    h.look(NODE);
    ClosedLoopHarness restarted = h.restarted(dir, PLAYBOOKS, ports(am.url()));
    open.add(restarted::stop);
    restarted.look(NODE);
    restarted.look(NODE);
    assertThat(silences(am, "active")).extracting(s -> s.getString("id")).containsExactly(id);
    assertThat(heldId(restarted.episode(NODE))).isEqualTo(id);

    // The ledger lost its record (a write that failed after Alertmanager answered): found by its marker, not doubled.
    Episode e = restarted.episode(NODE);
    String key = e.holds().entrySet().stream().filter(held -> held.getValue().kind().equals(HeldSilence.KIND))
        .map(Map.Entry::getKey).findFirst().orElseThrow();
    assertThat(e.silence(key)).isPresent();
    new EpisodeWriter(restarted.cluster, () -> true, restarted.clock).replace(NODE, e, e.withSilence(key, null));
    restarted.look(NODE);
    assertThat(silences(am, "active")).hasSize(1);
    assertThat(restarted.episode(NODE).silence(key)).as("found by its marker and held again").isPresent();

    // Renewed before it ends: still one active silence, ending later.
    Instant endsBefore = Instant.parse(silences(am, "active").get(0).getString("endsAt"));
    restarted.clock.advance(Duration.ofMinutes(45));
    restarted.look(NODE);
    assertThat(silences(am, "active")).singleElement().satisfies(s ->
        assertThat(Instant.parse(s.getString("endsAt"))).isAfter(endsBefore.plus(Duration.ofMinutes(40))));
    assertThat(heldId(restarted.episode(NODE))).isEqualTo(silences(am, "active").get(0).getString("id"));
    assertThat(state(am, "GpuThermal", NODE)).isEqualTo("suppressed");

    // The release expires it: the node's warnings page again.
    restarted.fire(Alerts.resolved(xid()));
    restarted.look(NODE);
    assertThat(silences(am, "active")).isEmpty();
    assertThat(restarted.node(NODE).ledger().unheld()).isEmpty();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(state(am, "GpuThermal", NODE)).isEqualTo("active"));
    restarted.look(NODE);
    assertThat(silences(am, "active")).isEmpty();

    // Expiring one already expired, or one Alertmanager 0.25 does not know (it answers 500 "silence not found"), is done.
    AlertmanagerSilences direct = new AlertmanagerSilences(vertx, am.url(), Optional.empty(), OutboundListener.NONE);
    direct.expire(id);
    direct.expire("00000000-0000-0000-0000-000000000000");
  }

  /**
   * The review's attack: a ledger annotation written on the Node (its kubelet can) naming a silence that is not ours
   * made the service DELETE it. Unsigned, such a ledger is not ours: never read for anything to delete.
   */
  @Test
  void aForgedLedgerNamingSomeoneElsesSilenceIsNotOursAndNeverExpiresIt() throws Exception {
    LocalAlertmanager am = new LocalAlertmanager(dir.resolve("am"));
    open.add(am);
    String id = am.theirSilence();
    ClosedLoopHarness h = harness(am.url());
    h.client.nodes().withName(NODE).edit(n -> {
      n.getMetadata().getAnnotations().put("gpu-remediator.io/state",
          "{\"v\":1,\"claims\":{},\"episodes\":{},\"expiring_silences\":[\"" + id + "\"]}");
      return n;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> h.node(NODE).ledgerFault().isPresent());
    h.look(NODE);
    assertThat(h.node(NODE).ledgerFault().orElseThrow().kind()).isEqualTo(LedgerFault.Kind.UNTRUSTED);
    assertThat(silences(am, "active")).extracting(x -> x.getString("id")).as("theirs, still active").containsExactly(id);
  }

  /**
   * Even a ledger of ours (signed) that names a silence not ours never expires it: expiring reads the silence first,
   * and someone else's is left as it is, and forgotten.
   */
  @Test
  void aLedgerOfOursNamingSomeoneElsesSilenceNeverExpiresIt() throws Exception {
    LocalAlertmanager am = new LocalAlertmanager(dir.resolve("am"));
    open.add(am);
    String id = am.theirSilence();
    ClosedLoopHarness h = harness(am.url());
    h.client.nodes().withName(NODE).edit(n -> {
      n.getMetadata().getAnnotations().put("gpu-remediator.io/state", SignedLedgers.sealed(NODE,
          "{\"v\":1,\"claims\":{},\"episodes\":{},\"expiring_silences\":[\"" + id + "\"]}"));
      return n;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> !h.node(NODE).ledger().unheld().isEmpty());
    h.look(NODE);
    assertThat(silences(am, "active")).extracting(x -> x.getString("id")).as("theirs, still active").containsExactly(id);
    assertThat(h.node(NODE).ledger().unheld()).as("not ours: forgotten").isEmpty();
  }

  @Test
  void anAlertmanagerRestartedWithoutItsDataGetsTheSilenceBackAtTheRenewal() throws Exception {
    int port = LocalAlertmanager.freePort();
    LocalAlertmanager first = new LocalAlertmanager(dir.resolve("am-1"), port);
    ClosedLoopHarness h = harness(first.url());
    h.fire(xid());
    h.look(NODE);
    String lost = heldId(h.episode(NODE));
    first.close();
    LocalAlertmanager second = new LocalAlertmanager(dir.resolve("am-2"), port); // a new data directory: nothing kept
    open.add(second);
    assertThat(silences(second, "active")).isEmpty();
    h.clock.advance(Duration.ofMinutes(45));
    h.look(NODE);
    assertThat(silences(second, "active")).singleElement()
        .satisfies(s -> assertThat(s.getString("id")).isNotEqualTo(lost).isEqualTo(heldId(h.episode(NODE))));
  }

  @Test
  void anAlertmanagerThatIsDownHoldsNothingUpAndIsAskedAgainWithBackoff() throws Exception {
    int port = LocalAlertmanager.freePort();
    ClosedLoopHarness h = harness(URI.create("http://127.0.0.1:" + port));
    h.fire(xid());
    h.look(NODE);
    h.look(NODE);
    assertThat(h.decisions(Reason.SILENCE_FAILED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("Alertmanager not reached").contains("the episode goes on"));
    assertThat(h.episode(NODE).progress().stage()).isEqualTo(Stage.DRAINED); // the drain did not wait for it
    assertThat(h.episode(NODE).silenceIds()).isEmpty();

    LocalAlertmanager am = new LocalAlertmanager(dir.resolve("am"), port);
    open.add(am);
    h.clock.advance(Duration.ofMillis(1500)); // past the first backoff (1 s)
    h.look(NODE);
    // Created by a clock the test moved ahead of Alertmanager's: it starts (is active) once real time catches up.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(silences(am, "active")).hasSize(1));
    assertThat(h.decisions(Reason.SILENCE_CREATED)).hasSize(1);
  }
}
