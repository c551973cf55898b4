package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code safety.domains} through the whole service against the emulated API server: two nodes of one NVLink clique
 * with a budget of 1, the second refused naming the clique (decision, Event, metric), a node of another clique admitted,
 * a node without the label limited only by the fleet; a zone budget in percent rounds down at 17 and at 18 nodes, and
 * {@code GET /api/v1/safety} shows every domain's budget.
 */
class DomainBudgetsMockTest {
  private static final String TOKEN = "domain-test-token-0123456789";
  private static final String CLIQUE = "nvidia.com/gpu.clique";
  private static final String ZONE = "topology.kubernetes.io/zone";
  private static final Duration EVENT_DEADLINE = Duration.ofSeconds(10);

  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;

  private static void gpuNode(KubernetesClient client, String name, Map<String, String> extra) {
    var n = Nodes.gpu(name, "10.1." + (name.hashCode() & 0xff) + "." + (name.length()));
    Map<String, String> labels = new HashMap<>(n.getMetadata().getLabels());
    labels.putAll(extra);
    n.getMetadata().setLabels(labels);
    client.nodes().resource(n).create();
  }

  @Test
  void aCliqueLosesNoMoreNodesThanItsBudgetAndTheRefusalNamesIt() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    gpuNode(client, "gb200-a-0", Map.of(CLIQUE, "clique-a"));
    gpuNode(client, "gb200-a-1", Map.of(CLIQUE, "clique-a"));
    gpuNode(client, "gb200-b-0", Map.of(CLIQUE, "clique-b"));
    gpuNode(client, "h100-0", Map.of());
    for (int i = 0; i < 17; i++) {
      gpuNode(client, "zone-a-" + i, Map.of(ZONE, "zone-a"));
    }
    for (int i = 0; i < 18; i++) {
      gpuNode(client, "zone-b-" + i, Map.of(ZONE, "zone-b"));
    }
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir,
        "safety:\n  max_unavailable: 100%\n  breaker: {nodes: 50, window: 10m}\n  domains:\n"
        + "    - {label: " + CLIQUE + ", max_unavailable: 1}\n"
        + "    - {label: " + ZONE + ", max_unavailable: 50%}\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      JsonArray domains = new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("domains");
      assertThat(domains.stream().map(JsonObject.class::cast).filter(d -> d.getString("label").equals(ZONE))
          .map(d -> d.getString("value") + ":" + d.getInteger("selected_nodes") + "/" + d.getInteger("budget")))
          .as("50% of 17 and of 18 nodes, rounded down").containsExactly("zone-a:17/8", "zone-b:18/9");

      assertThat(service.post(Alerts.xid("gb200-a-0", "79", "reboot"))).contains("actions_applied");
      String refused = service.post(Alerts.xid("gb200-a-1", "79", "reboot"));
      assertThat(refused).contains("\"outcome\":\"suppressed\"", "\"reason\":\"domain_budget_exhausted\"");
      assertThat(service.get("/api/v1/decisions?limit=20").body()).contains("failure domain nvidia.com/gpu.clique=clique-a:"
          + " 1 of its 2 selected nodes are unavailable; its max_unavailable 1 allows 1");
      assertThat(client.nodes().withName("gb200-a-1").get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
      // The refusal's Event is written after the webhook is answered (Events are paced): poll for it.
      await().atMost(EVENT_DEADLINE).untilAsserted(() ->
          assertThat(client.v1().events().inNamespace("default").list().getItems()).anySatisfy(e -> {
            assertThat(e.getInvolvedObject().getName()).isEqualTo("gb200-a-1");
            assertThat(e.getMessage()).contains("nvidia.com/gpu.clique=clique-a");
          }));
      assertThat(service.get("/metrics").body()).contains("reason=\"domain_budget_exhausted\"");

      assertThat(service.post(Alerts.xid("gb200-b-0", "79", "reboot"))).as("another clique is its own domain")
          .contains("actions_applied");
      assertThat(service.post(Alerts.xid("h100-0", "79", "reboot"))).as("no label: the fleet budget only")
          .contains("actions_applied");
      JsonObject clique = new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("domains").stream()
          .map(JsonObject.class::cast).filter(d -> d.getString("value").equals("clique-a")).findFirst().orElseThrow();
      assertThat(clique.getInteger("unavailable")).isEqualTo(1);
      assertThat(clique.getInteger("left")).isZero();
      // Every limit that counts the fleet is a row of "limits", in the API and on /metrics, the domains' values included.
      JsonObject row = new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("limits").stream()
          .map(JsonObject.class::cast).filter(l -> l.getString("limit").equals("domains[" + CLIQUE + "=clique-a]"))
          .findFirst().orElseThrow();
      assertThat(row.getInteger("used")).isEqualTo(1);
      assertThat(row.getInteger("allowed")).isEqualTo(1);
      assertThat(service.get("/metrics").body()).contains("remediator_limit_used{limit=\"domains[" + CLIQUE + "=clique-a]\",} 1.0",
          "remediator_limit_allowed{limit=\"max_unavailable\",}");
    }
  }
}
