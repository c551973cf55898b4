package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot spares through the whole service ({@code spares: {select, count: 2}}): the pool takes two idle GPU nodes; a
 * quarantine releases one within a scan, untainted and schedulable while the quarantined node's drain is still held by
 * its budget; the spares count toward no budget ({@code max_unavailable: 1} still admits the fault); the repaired node
 * returns as the spare the pool is short of; an idle spare is never remediated; the pool never holds more than its
 * count. With no idle node to hold, the pool is empty and an episode goes on unchanged.
 */
class SparePoolServiceMockTest {
  private static final String TOKEN = "spares-test-token-0123456789";
  private static final String SPARE = "gpu-remediator.io/spare";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-xid", """
            - drain: {mode: evict, timeout: 30m, grace_period: 1m}
          on_resolved:
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
      """);

  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;
  private KubernetesClient client;

  private RunningService start(int count, int busyNodes) throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 5);
    for (int i = 0; i < busyNodes; i++) {
      Nodes.runningPod(client, "ml", "trainer-" + i, "gpu-node-" + i, Map.of("app", "llm"));
    }
    Tokens.write(dir, TOKEN);
    Files.writeString(dir.resolve("playbooks.yaml"), PLAYBOOKS);
    Path config = ServiceConfig.write(dir.resolve("remediator.yaml"), "playbooks.yaml",
        "leader_election: {enabled: false}\nloop: {interval: 200ms, retry_delay: 200ms}\n"
        + "safety: {max_unavailable: 1, rate_limit: 100/1h, breaker: {nodes: 50, window: 10m}}\n"
        + "spares: {select: \"nvidia.com/gpu.present=true\", count: " + count + "}\n");
    return RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN));
  }

  private static JsonObject pool(RunningService service) throws Exception {
    return new JsonObject(service.get("/api/v1/fleet").body()).getJsonObject("spares");
  }

  private List<String> spares() {
    return IntStream.range(0, 5).mapToObj(i -> "gpu-node-" + i).filter(n -> client.nodes().withName(n).get().getSpec()
        .getTaints().stream().anyMatch(t -> t.getKey().equals(SPARE))).toList();
  }

  private boolean schedulable(String node) {
    Node n = client.nodes().withName(node).get();
    return !Boolean.TRUE.equals(n.getSpec().getUnschedulable()) && n.getSpec().getTaints().isEmpty();
  }

  @Test
  void aQuarantineReleasesASpareAtOnceAndTheRepairedNodeRefillsThePool() throws Exception {
    try (RunningService service = start(2, 3)) {
      await().atMost(Duration.ofSeconds(20)).until(() -> spares().equals(List.of("gpu-node-3", "gpu-node-4")));
      // The pool's view is the scan's, written once its taints are: the API shows it a moment after the nodes do.
      await().atMost(Duration.ofSeconds(20)).until(() -> pool(service).getJsonArray("nodes").getList()
          .equals(List.of("gpu-node-3", "gpu-node-4")));
      assertThat(new JsonObject(service.get("/api/v1/fleet").body()).getJsonObject("stages").getInteger("spare")).isEqualTo(2);

      server.budget("ml", "llm-pdb", "app", "llm", 0); // the trainer's budget holds the drain
      assertThat(service.post(Alerts.xid("gpu-node-0", "79"))).as("spares hold no budget: max_unavailable 1 admits it")
          .contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> spares().size() == 1);
      String released = spares().contains("gpu-node-3") ? "gpu-node-4" : "gpu-node-3";
      assertThat(schedulable(released)).as("the released spare takes work").isTrue();
      service.awaitStage("gpu-node-0", "draining", n -> true); // before the drain ends
      assertThat(service.get("/api/v1/decisions").body()).as("an idle spare is never remediated")
          .doesNotContain("\"node\":\"gpu-node-3\"").doesNotContain("\"node\":\"gpu-node-4\"");

      server.allow("ml", "llm-pdb", 1);
      service.awaitStage("gpu-node-0", "drained", n -> true);
      assertThat(service.post(Alerts.resolved(Alerts.xid("gpu-node-0", "79")))).contains("\"outcome\":\"applied\"");
      await().atMost(Duration.ofSeconds(20)).until(() -> spares().contains("gpu-node-0"));
      assertThat(spares()).as("the repaired node is the spare the pool was short of").hasSize(2);
      assertThat(schedulable(released)).isTrue();

      // An alert that names a spare: remediated like any node, and counted as out, not as a spare.
      String kept = released.equals("gpu-node-3") ? "gpu-node-4" : "gpu-node-3";
      assertThat(service.post(Alerts.xid(kept, "79"))).contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> pool(service).getInteger("out_of_service") == 1);
      assertThat(pool(service).getJsonArray("nodes").getList()).as("the faulty spare is no spare")
          .containsExactly("gpu-node-0");
    }
  }

  @Test
  void withNoIdleNodeThePoolIsEmptyAndTheEpisodeGoesOnUnchanged() throws Exception {
    try (RunningService service = start(1, 5)) {
      assertThat(service.post(Alerts.xid("gpu-node-0", "79"))).contains("actions_applied");
      service.awaitStage("gpu-node-0", "drained", n -> true);
      await().atMost(Duration.ofSeconds(20)).until(() -> pool(service).getInteger("target") == 0); // one out, a pool of one
      assertThat(pool(service).getJsonArray("nodes").getList()).isEmpty();
      assertThat(spares()).isEmpty();
    }
  }
}
