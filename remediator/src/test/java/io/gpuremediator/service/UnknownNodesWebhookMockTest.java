package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A webhook naming 1,000 nodes the watch cache does not hold (the watch covers the selected nodes only), through the
 * whole service against the emulated API server at the default API throttle: it is answered without waiting on a read of
 * any of them (a generous bound here; {@code make bench} measures it against a 2 s target), every alert refused; the
 * reads that follow in the background name the next send's refusal of a node outside the selector.
 */
class UnknownNodesWebhookMockTest {
  private static final String TOKEN = "unknown-nodes-token-0123456789";
  private static final int ALERTS = 1000;
  /** Far above the 2 s target (make bench): only an answer that waits on reads, 5 a second, comes near it. */
  private static final Duration GENEROUS = Duration.ofSeconds(15);

  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;

  @Test
  void aThousandUnknownNodesAreRefusedAtOnceAndTheNextSendNamesANodeOutsideTheSelector() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    Nodes.createFleet(client, 4);
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir,
        "node_selector: ['nvidia.com/gpu.present=true']\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      List<Alert> alerts = new ArrayList<>();
      alerts.add(Alerts.xid("cpu-node-1", "79"));
      for (int i = 1; i < ALERTS; i++) {
        alerts.add(Alerts.xid("absent-node-" + i, "79"));
      }
      long started = System.nanoTime();
      HttpResponse<String> answer = service.alerts(alerts.toArray(Alert[]::new));
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(answer.statusCode()).isEqualTo(200);
      Map<String, Integer> reasons = new TreeMap<>();
      RunningService.decisionsOf(answer).forEach(d -> reasons.merge(((JsonObject) d).getString("reason"), 1, Integer::sum));
      assertThat(reasons).as("every alert refused, none waiting on a read").containsExactly(Map.entry("node_not_found", ALERTS));
      assertThat(took).as("answer time of " + ALERTS + " unknown nodes").isLessThan(GENEROUS);
      assertThat(client.nodes().withName("cpu-node-1").get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);

      // Alertmanager sends a firing alert again each group interval; here, every 200 ms until the read has been made.
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> assertThat(
          RunningService.decisionsOf(service.alerts(Alerts.xid("cpu-node-1", "79"))).getJsonObject(0).getString("reason"))
          .as("a later send, once the background read found the node").isEqualTo("node_not_selected"));
      assertThat(new JsonObject(service.get("/api/v1/decisions?limit=1").body()).getJsonArray("decisions")
          .getJsonObject(0).getString("detail")).contains("does not match node_selector");
      assertThat(client.nodes().withName("cpu-node-1").get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
    }
  }
}
