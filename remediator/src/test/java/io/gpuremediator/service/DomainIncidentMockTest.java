package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.OnCallReceiver;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure domain's incident ({@code safety.domains[].incident: {nodes: 2}}) through the whole service against the
 * emulated API server: of four trays of one NVLink clique faulting within the window, the first two are remediated
 * and the third and fourth are {@code suppressed/domain_incident}; the on-call is paged once; a tray of another clique
 * is remediated as usual; {@code GET /api/v1/safety} shows the incident until a human resets it with the token, after
 * which the refused tray's alert, sent again, starts its first episode (the refusals counted on no ladder).
 */
class DomainIncidentMockTest {
  private static final String TOKEN = "incident-test-token-0123456789";
  private static final String CLIQUE = "nvidia.com/gpu.clique";

  @TempDir Path dir;
  /** Closed after the test, as the server. */
  @AutoClose private OnCallReceiver oncall;
  @AutoClose private EmulatedApiServer server;

  private static void tray(KubernetesClient client, String name, String clique) {
    var n = Nodes.gpu(name, "10.2." + (name.hashCode() & 0xff) + "." + name.length());
    Map<String, String> labels = new HashMap<>(n.getMetadata().getLabels());
    labels.put(CLIQUE, clique);
    n.getMetadata().setLabels(labels);
    client.nodes().resource(n).create();
  }

  @Test
  void theThirdTrayOfACliqueFaultingTogetherOpensOneIncidentPagedOnceUntilAHumanResetsIt() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    for (int i = 0; i < 4; i++) {
      tray(client, "gb200-a-" + i, "clique-a");
    }
    tray(client, "gb200-b-0", "clique-b");
    oncall = new OnCallReceiver(dir.resolve("oncall-url"));
    List<String> paged = oncall.received();
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir,
        "notify: {receivers: [{name: pager, type: slack, url_file: oncall-url}]}\n"
        + "safety:\n  max_unavailable: 100%\n  breaker: {nodes: 50, window: 10m}\n  page: [pager]\n  domains:\n"
        + "    - {label: " + CLIQUE + ", max_unavailable: 100%, incident: {nodes: 2, window: 15m}}\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      String first = service.post(Alerts.xid("gb200-a-0", "79", "reboot"));
      assertThat(first).contains("actions_applied");
      assertThat(service.post(Alerts.xid("gb200-a-1", "79", "reboot"))).contains("actions_applied");
      for (String refused : List.of("gb200-a-2", "gb200-a-3")) {
        assertThat(service.post(Alerts.xid(refused, "79", "reboot"))).as(refused)
            .contains("\"outcome\":\"suppressed\"", "\"reason\":\"domain_incident\"");
        assertThat(client.nodes().withName(refused).get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
      }
      assertThat(service.post(Alerts.xid("gb200-b-0", "79", "reboot"))).as("another clique").contains("actions_applied");
      assertThat(service.get("/api/v1/decisions?limit=100").body()).contains("failure domain " + CLIQUE + "=clique-a holds an"
          + " incident since");

      JsonArray incidents = new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("incidents");
      assertThat(incidents).hasSize(1);
      JsonObject incident = incidents.getJsonObject(0);
      assertThat(incident.getString("value")).isEqualTo("clique-a");
      assertThat(incident.getJsonArray("nodes").getList()).containsExactly("gb200-a-0", "gb200-a-1", "gb200-a-2");
      assertThat(service.get("/metrics").body()).as("the four trays faulting, of the two allowed").contains(
          "remediator_limit_used{limit=\"incident[" + CLIQUE + "=clique-a]\",} 4.0",
          "remediator_limit_allowed{limit=\"incident[" + CLIQUE + "=clique-a]\",} 2.0", "reason=\"domain_incident\"");
      await().atMost(Duration.ofSeconds(20)).until(() -> !paged.isEmpty());
      assertThat(paged).singleElement().satisfies(m -> assertThat(m).startsWith("domain incident in " + CLIQUE
          + "=clique-a: 3 nodes"));

      String reset = "/api/v1/safety/domains/" + CLIQUE + "/clique-a/reset";
      assertThat(Http.send(service.port(), "POST", reset, "{}".getBytes(StandardCharsets.UTF_8), "application/json",
          Optional.empty()).statusCode()).as("no token").isEqualTo(401);
      assertThat(service.postJson(reset, "{\"reason\": \"switch tray replaced\"}").statusCode()).isEqualTo(200);
      assertThat(new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("incidents")).isEmpty();
      assertThat(service.postJson(reset, "{}").statusCode()).as("none open any more").isEqualTo(404);

      String again = service.post(Alerts.xid("gb200-a-2", "79", "reboot"));
      assertThat(again).as("decided under the limits again: its first episode").contains("actions_applied");
      assertThat(new JsonObject(again).getJsonArray("decisions").getJsonObject(0).getString("playbook"))
          .isEqualTo(new JsonObject(first).getJsonArray("decisions").getJsonObject(0).getString("playbook"));
      assertThat(paged).as("one page for the incident").hasSize(1);
    }
  }
}
