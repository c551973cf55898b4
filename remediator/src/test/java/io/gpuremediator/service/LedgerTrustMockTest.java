package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.LocalAlertmanager;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.SignedLedgers;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's third attack, against the whole service with the shipped playbooks and a real Alertmanager: a ledger
 * annotation written on the Node by whoever can write it (the node's own kubelet) named a silence that was not ours,
 * and the service deleted it. Every ledger the service writes is now signed with its key; one that does not verify
 * (unsigned, signed for another node, or with another key) is {@code ledger_untrusted}: the node is not acted on and
 * nothing the annotation names is deleted. And the upgrade: a ledger an earlier release wrote unsigned is re-signed once
 * by the first leader, its running episode going on, and recorded so; after that an unsigned ledger is not ours.
 */
class LedgerTrustMockTest {
  private static final String TOKEN = "ledger-trust-test-token";
  private static final String STATE = "gpu-remediator-state";
  @TempDir Path dir;
  private EmulatedApiServer server;
  private KubernetesClient client;
  private LocalAlertmanager am;
  private Path config;

  @BeforeEach
  void start() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    am = new LocalAlertmanager(dir.resolve("am"));
    Tokens.write(dir, TOKEN);
    config = dir.resolve("remediator.yaml");
    Files.writeString(config, ServiceConfig.shipped(
        "safety: {max_unavailable: 100%, rate_limit: 1000/1h}\nloop: {interval: 200ms, retry_delay: 200ms}\n"
        + "alertmanager: {url: \"" + am.url() + "\"}\n"));
  }

  @AfterEach
  void stop() throws Exception {
    am.close();
    client.close();
    server.close();
  }

  private String annotation(String node) {
    return Optional.ofNullable(client.nodes().withName(node).get().getMetadata().getAnnotations())
        .map(a -> a.get("gpu-remediator.io/state")).orElse(null);
  }

  private void writeLedger(String node, String annotation) {
    client.nodes().withName(node).edit(n -> {
      n.getMetadata().getAnnotations().put("gpu-remediator.io/state", annotation);
      return n;
    });
  }

  private Optional<String> signedSince() {
    ConfigMap cm = client.configMaps().inNamespace("gpu-remediator").withName(STATE).get();
    return Optional.ofNullable(cm).map(ConfigMap::getData).map(d -> d.get("ledgers-signed-since"));
  }

  /** The node's state as GET /api/v1/nodes shows it ("" when it is not listed). */
  private static String state(RunningService s, String node) throws Exception {
    return new JsonObject(s.get("/api/v1/nodes").body()).getJsonArray("nodes").stream().map(o -> (JsonObject) o)
        .filter(n -> node.equals(n.getString("node"))).map(n -> n.getString("state")).findFirst().orElse("");
  }

  private List<String> activeSilences() throws Exception {
    return new JsonArray(am.get("/api/v2/silences")).stream().map(o -> (JsonObject) o)
        .filter(s -> "active".equals(s.getJsonObject("status").getString("state"))).map(s -> s.getString("id")).toList();
  }

  @Test
  void aLedgerTheServiceDidNotSignIsNeverActedOnNorUsedToDeleteAnything() throws Exception {
    String id = am.theirSilence();
    String forged = "{\"v\":1,\"claims\":{},\"episodes\":{},\"expiring_silences\":[\"" + id + "\"]}";
    try (RunningService s = new RunningService(config, server, Alerts.liveClock(), TOKEN)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> signedSince().isPresent());
      writeLedger("gpu-node-1", forged); // unsigned, as the review's attack wrote it
      writeLedger("gpu-node-2", SignedLedgers.sealed("gpu-node-3", forged)); // ours, but another node's
      writeLedger("gpu-node-3", SignedLedgers.sealed("another-key-0123456789abcdef-0123456789", "gpu-node-3", forged));
      for (String node : List.of("gpu-node-1", "gpu-node-2", "gpu-node-3")) {
        await().atMost(Duration.ofSeconds(20)).until(() -> state(s, node), "ledger_untrusted"::equals);
        Alert xid = Alerts.xid(node, "79");
        String answer = s.post(xid);
        assertThat(answer).as(node).contains("\"reason\":\"ledger_untrusted\"").doesNotContain("actions_applied");
        assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).as(node + ": not cordoned").isNull();
      }
      assertThat(s.decisions()).contains("is not signed: not written by this service since its ledgers are signed",
          "carries a signature that does not verify with this service's ledger key for this node");
      assertThat(s.get("/metrics").body())
          .contains("remediator_decisions_total{outcome=\"suppressed\",reason=\"ledger_untrusted\",} 3.0");
      await().atMost(Duration.ofSeconds(20)).until(() -> client.v1().events().inNamespace("default").list().getItems()
          .stream().filter(e -> "RemediationSuppressed".equals(e.getReason())).count() == 3);
      List<Event> events = client.v1().events().inNamespace("default").list().getItems();
      assertThat(events).filteredOn(e -> "RemediationSuppressed".equals(e.getReason()))
          .extracting(e -> e.getInvolvedObject().getName())
          .containsExactlyInAnyOrder("gpu-node-1", "gpu-node-2", "gpu-node-3");

      // A node the service did act on meanwhile: its loop has looked at every node many times over.
      assertThat(s.post(Alerts.xid("gpu-node-0", "79"))).contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> s.node("gpu-node-0").map(n -> n.getJsonArray("episodes"))
          .map(e -> !e.isEmpty()).orElse(false));
      assertThat(activeSilences()).as("their silence: never expired").contains(id);
      assertThat(annotation("gpu-node-1")).as("left as written, for an operator to read").isEqualTo(forged);
    }
  }

  @Test
  void anUpgradeReSignsTheLedgersAnEarlierReleaseWroteOnceAndTheirEpisodesGoOn() throws Exception {
    Alert xid = Alerts.xid("gpu-node-1", "79");
    try (RunningService first = new RunningService(config, server, Alerts.liveClock(), TOKEN)) {
      assertThat(first.post(xid)).contains("actions_applied");
    }
    // What today's release left: the same ledger, unsigned, and no record of a re-signing.
    String unsigned = SignedLedgers.ledger(annotation("gpu-node-1"));
    assertThat(unsigned).startsWith("{\"v\":2,\"claims\"").contains(xid.fingerprint());
    writeLedger("gpu-node-1", unsigned);
    client.configMaps().inNamespace("gpu-remediator").withName(STATE).edit(cm -> {
      cm.getData().remove("ledgers-signed-since");
      return cm;
    });

    try (RunningService upgraded = new RunningService(config, server, Alerts.liveClock(), TOKEN)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> signedSince().isPresent());
      String signed = annotation("gpu-node-1");
      assertThat(signed).as("re-signed").startsWith("{\"v\":2,\"hmac\":\"");
      assertThat(signed).isEqualTo(SignedLedgers.sealed("gpu-node-1", SignedLedgers.ledger(signed)));
      // The episode the earlier release ran goes on from where it stood (quarantined, unless that release moved it on
      // before it stopped): it leaves that stage.
      String stood = new JsonObject(unsigned).getJsonObject("episodes").getJsonObject(xid.fingerprint())
          .getJsonObject("progress").getString("stage");
      await().atMost(Duration.ofSeconds(20)).until(() -> upgraded.node("gpu-node-1").map(n -> n.getJsonArray("episodes")
          .getJsonObject(0)).filter(e -> e.getString("fingerprint").equals(xid.fingerprint()))
          .map(e -> !e.getString("stage").equals(stood) || !"quarantined".equals(stood)).orElse(false));
      assertThat(upgraded.post(xid)).as("the same episode, not a new one").doesNotContain("actions_applied")
          .doesNotContain("ledger_untrusted");

      // Read once: from now on an unsigned ledger is not ours.
      writeLedger("gpu-node-2", unsigned.replace("gpu-node-1", "gpu-node-2"));
      await().atMost(Duration.ofSeconds(20)).until(() -> state(upgraded, "gpu-node-2"), "ledger_untrusted"::equals);
      assertThat(upgraded.post(Alerts.xid("gpu-node-2", "79"))).contains("\"reason\":\"ledger_untrusted\"");
    }
  }
}
