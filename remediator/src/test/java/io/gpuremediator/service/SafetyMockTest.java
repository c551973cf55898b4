package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
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
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The safety layer of the whole service against the fabric8 mock API server (CRUD mode) over HTTP. */
@EnableKubernetesMockClient(crud = true)
class SafetyMockTest {
  KubernetesMockServer server;
  KubernetesClient mockClient;
  @TempDir Path dir;

  private static final String TOKEN = "safety-test-token-0123456789";
  private final List<RunningService> services = new ArrayList<>();
  private KubernetesClient client;

  @BeforeEach
  void fleet() throws Exception {
    client = Nodes.noRetry(mockClient);
    for (int i = 0; i < 10; i++) {
      client.nodes().resource(Nodes.gpu("gpu-node-" + i, "10.0.0." + (i + 1))).create();
    }
    Tokens.write(dir, TOKEN);
  }

  @AfterEach
  void stop() {
    services.forEach(RunningService::close);
    client.close();
  }

  private RunningService service(String safety) throws Exception {
    Path f = dir.resolve("remediator-" + services.size() + ".yaml");
    ServiceConfig.write(f, ServiceConfig.IMMEDIATE_PLAYBOOKS, "safety: " + safety + "\n", ServiceConfig.LEADING);
    RunningService s = RunningService.started(f, KubeApi.of(Nodes.noRetry(mockClient)), Alerts.liveClock(),
        Optional.of(TOKEN));
    services.add(s);
    return s;
  }

  private static HttpResponse<String> send(int port, String method, String path, String body, String contentType)
      throws Exception {
    return Http.send(port, method, path, body == null ? new byte[0] : Http.text(body), contentType,
        Optional.of(path.equals("/api/v1/alerts") ? TOKEN : Tokens.operator(TOKEN)));
  }

  private static HttpResponse<String> post(int port, Alert... alerts) throws Exception {
    return send(port, "POST", "/api/v1/alerts", Alerts.json(alerts), "application/json");
  }

  private static String reason(HttpResponse<String> r, int i) {
    return new JsonObject(r.body()).getJsonArray("decisions").getJsonObject(i).getString("reason");
  }

  private static boolean ready(int port) {
    return Http.status(port, "/readyz") == 200;
  }

  private long events(String node, String reason) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> e.getInvolvedObject().getName().equals(node) && e.getReason().equals(reason)).count();
  }

  private static final String WIDE = "{max_unavailable: 50%, rate_limit: 100/1h, breaker: {nodes: 20, window: 10m}}";

  @Test
  void aRestartBetweenAnAlertAndItsResendCausesNoSecondActionAndTheReleaseStillWorks() throws Exception {
    RunningService first = service(WIDE);
    int port = first.port();
    await().atMost(Duration.ofSeconds(15)).until(() -> ready(port));
    Alert xid = Alerts.xid("gpu-node-1", "79");
    assertThat(reason(post(port, xid), 0)).isEqualTo("actions_applied");
    first.close();

    RunningService second = service(WIDE);
    int port2 = second.port();
    await().atMost(Duration.ofSeconds(30)).until(() -> ready(port2));
    assertThat(reason(post(port2, xid), 0)).isEqualTo("duplicate_episode");
    await().atMost(Duration.ofSeconds(10)).until(() -> events("gpu-node-1", "GpuXidHardwareError") == 1);
    assertThat(reason(post(port2, Alerts.resolved(xid)), 0)).isEqualTo("resolved_actions_applied");
    assertThat(client.nodes().withName("gpu-node-1").get().getSpec().getTaints()).isEmpty();
    assertThat(client.nodes().withName("gpu-node-1").get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
  }

  @Test
  void onlyTheLeaderActsAndTheFollowerTakesOverWhenTheLeaderStops() throws Exception {
    RunningService a = service(WIDE);
    RunningService b = service(WIDE);
    int portA = a.port();
    int portB = b.port();
    await().atMost(Duration.ofSeconds(15)).until(() -> ready(portA) || ready(portB));
    boolean aLeads = ready(portA);
    int leader = aLeads ? portA : portB;
    int follower = aLeads ? portB : portA;
    assertThat(ready(follower)).isFalse();

    HttpResponse<String> refused = post(follower, Alerts.xid("gpu-node-2", "79"));
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(new JsonObject(refused.body()).getString("error")).isEqualTo("not ready: not the leader");
    assertThat(client.nodes().withName("gpu-node-2").get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
    assertThat(reason(post(leader, Alerts.xid("gpu-node-2", "79")), 0)).isEqualTo("actions_applied");

    (aLeads ? a : b).close();
    await().atMost(Duration.ofSeconds(20)).until(() -> ready(follower));
    assertThat(reason(post(follower, Alerts.xid("gpu-node-2", "79")), 0)).as("the new leader resumes from the node's ledger")
        .isEqualTo("duplicate_episode");
    assertThat(reason(post(follower, Alerts.xid("gpu-node-3", "48")), 0)).isEqualTo("actions_applied");
  }

  private boolean breakerStoredOpen() {
    ConfigMap state = client.configMaps().inNamespace("gpu-remediator").withName("gpu-remediator-state").get();
    return state != null && state.getData().containsKey("fleet.json")
        && new JsonObject(state.getData().get("fleet.json")).getJsonObject("breaker").getBoolean("open");
  }

  @Test
  void aBudgetThatRoundsToZeroForTheSelectedFleetIsSaidByTheSafetyApi() throws Exception {
    RunningService s = service("{max_unavailable: 5%}");
    int port = s.port();
    await().atMost(Duration.ofSeconds(15)).until(() -> ready(port));
    JsonObject safety = new JsonObject(send(port, "GET", "/api/v1/safety", null, null).body());
    assertThat(safety.getJsonObject("max_unavailable").getInteger("budget")).isZero();
    assertThat(safety.getJsonArray("warnings").getList()).singleElement().asString()
        .startsWith("safety.max_unavailable allows 0 of the 10 selected nodes: nothing will be quarantined");
  }

  @Test
  void aStormOpensTheBreakerWhichIsStoredInTheConfigMapAndResetOnlyByTheApi() throws Exception {
    RunningService s = service("{max_unavailable: 50%, rate_limit: 100/1h, breaker: {nodes: 3, window: 10m}}");
    int port = s.port();
    await().atMost(Duration.ofSeconds(15)).until(() -> ready(port));
    Alert[] storm = IntStream.range(0, 6).mapToObj(i -> Alerts.xid("gpu-node-" + i, "79")).toArray(Alert[]::new);
    HttpResponse<String> r = post(port, storm);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(r.body()).getJsonObject("outcomes").getInteger("suppressed")).isEqualTo(6);
    assertThat(IntStream.range(0, 10).filter(i ->
        Boolean.TRUE.equals(client.nodes().withName("gpu-node-" + i).get().getSpec().getUnschedulable()))).isEmpty();

    // Stored and announced after the answer, off the webhook's path.
    await().atMost(Duration.ofSeconds(10)).until(() -> breakerStoredOpen());
    await().atMost(Duration.ofSeconds(10)).until(() -> client.v1().events().inNamespace("gpu-remediator").list().getItems()
        .stream().anyMatch(e -> "RemediationBreakerOpen".equals(e.getReason())));
    await().atMost(Duration.ofSeconds(10)).until(() -> events("gpu-node-0", "RemediationSuppressed") == 1);
    JsonObject safety = new JsonObject(send(port, "GET", "/api/v1/safety", null, null).body());
    assertThat(safety.getJsonObject("breaker").getString("state")).isEqualTo("open");
    assertThat(safety.getJsonObject("breaker").getInteger("nodes_in_window")).isEqualTo(6);
    assertThat(send(port, "GET", "/metrics", null, null).body())
        .contains("remediator_breaker_open 1.0", "remediator_decisions_total{outcome=\"suppressed\",reason=\"breaker_open\",} 6.0");

    HttpResponse<String> noToken = Http.send(port, "POST", "/api/v1/breaker/reset", new byte[0], "", Optional.empty());
    assertThat(noToken.statusCode()).isEqualTo(401);
    for (String bad : new String[] {"{\"reason\": 7}", "{\"reason\": \"  \"}", "[1]"}) {
      HttpResponse<String> refused = send(port, "POST", "/api/v1/breaker/reset", bad, "application/json");
      assertThat(refused.statusCode()).as(bad).isEqualTo(400);
    }
    assertThat(new JsonObject(send(port, "GET", "/api/v1/safety", null, null).body()).getJsonObject("breaker")
        .getString("state")).as("bad input changes nothing").isEqualTo("open");
    HttpResponse<String> reset = send(port, "POST", "/api/v1/breaker/reset", "{\"reason\":\"exporter rollout fixed\"}",
        "application/json");
    assertThat(reset.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(reset.body()).getJsonObject("breaker").getString("state")).isEqualTo("closed");
    ConfigMap state = client.configMaps().inNamespace("gpu-remediator").withName("gpu-remediator-state").get();
    assertThat(new JsonObject(state.getData().get("fleet.json")).getJsonObject("breaker").getBoolean("open")).isFalse();
  }

  /**
   * The review's attack: whoever reads Alertmanager's Secret holds the webhook token, which used to be the operator's.
   * It now posts alerts and nothing else: a pause, a resume, a breaker or domain reset, a release, a retry and every
   * read are answered 403 and change nothing; the operator's token does not post alerts; the read token only reads.
   */
  @Test
  void eachTokenWorksInItsRoleOnlyAndTheWebhooksCannotPauseResetOrRelease() throws Exception {
    Tokens.writeReader(dir, "safety-read-token-0123456789");
    Path f = ServiceConfig.writeWithReader(dir.resolve("roles.yaml"), ServiceConfig.IMMEDIATE_PLAYBOOKS, "safety: " + WIDE
        + "\n", ServiceConfig.LEADING);
    RunningService s = RunningService.started(f, KubeApi.of(Nodes.noRetry(mockClient)), Alerts.liveClock(),
        Optional.of(TOKEN));
    services.add(s);
    int port = s.port();
    await().atMost(Duration.ofSeconds(15)).until(() -> ready(port));
    String json = "application/json";
    String reason = "{\"reason\": \"from Alertmanager's Secret\", \"duration\": \"720h\"}";
    for (String[] call : new String[][] {{"POST", "/api/v1/pause"}, {"DELETE", "/api/v1/pause"},
        {"POST", "/api/v1/breaker/reset"}, {"POST", "/api/v1/safety/domains/topology.kubernetes.io/zone/a/reset"},
        {"POST", "/api/v1/nodes/gpu-node-1/release"}, {"POST", "/api/v1/nodes/gpu-node-1/retry"},
        {"GET", "/api/v1/safety"}, {"GET", "/api/v1/decisions"}}) {
      HttpResponse<String> r = Http.send(port, call[0], call[1], Http.text(reason), json, Optional.of(TOKEN));
      assertThat(r.statusCode()).as("the webhook token on %s %s", call[0], call[1]).isEqualTo(403);
      assertThat(r.body()).contains("the webhook token posts alerts only");
    }
    HttpResponse<String> read = Http.send(port, "POST", "/api/v1/pause", Http.text(reason), json,
        Optional.of("safety-read-token-0123456789"));
    assertThat(read.statusCode()).isEqualTo(403);
    assertThat(read.body()).contains("the read-only token cannot change anything");
    HttpResponse<String> operatorAlert = Http.send(port, "POST", "/api/v1/alerts",
        Http.text(Alerts.json(Alerts.xid("gpu-node-1", "79"))), json, Optional.of(Tokens.operator(TOKEN)));
    assertThat(operatorAlert.statusCode()).isEqualTo(403);
    assertThat(new JsonObject(send(port, "GET", "/api/v1/safety", null, null).body()).getJsonObject("pause")
        .getBoolean("paused")).as("nothing paused").isFalse();
    assertThat(Http.send(port, "GET", "/api/v1/safety", new byte[0], "", Optional.of("safety-read-token-0123456789"))
        .statusCode()).isEqualTo(200);
    assertThat(post(port, Alerts.xid("gpu-node-1", "79")).statusCode()).as("the webhook token posts alerts").isEqualTo(200);
    assertThat(send(port, "POST", "/api/v1/pause", reason, json).statusCode()).as("the operator's pauses").isEqualTo(200);
  }

  @Test
  void pauseRefusesNewRemediationsUntilResumedAndBadInputChangesNothing() throws Exception {
    RunningService s = service(WIDE);
    int port = s.port();
    await().atMost(Duration.ofSeconds(15)).until(() -> ready(port));
    assertThat(send(port, "POST", "/api/v1/pause", "{\"until\":\"2099-01-01T00:00:00Z\"}", "application/json").statusCode())
        .isEqualTo(400);
    assertThat(send(port, "POST", "/api/v1/pause", "{\"reason\":\"x\",\"until\":\"2000-01-01T00:00:00Z\"}", "application/json")
        .body()).contains("until: the pause must end in the future");
    assertThat(send(port, "POST", "/api/v1/pause", "{\"reason\":\"x\",\"duration\":\"90d\"}", "application/json").body())
        .contains("until: a pause lasts at most 720h");
    assertThat(send(port, "POST", "/api/v1/pause", "reason=x", "text/plain").statusCode()).isEqualTo(415);
    assertThat(new JsonObject(send(port, "GET", "/api/v1/safety", null, null).body()).getJsonObject("pause")
        .getBoolean("paused")).isFalse();

    HttpResponse<String> paused = send(port, "POST", "/api/v1/pause", "{\"reason\":\"driver upgrade\",\"duration\":\"2h\"}",
        "application/json");
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(paused.body()).getJsonObject("pause").getString("reason")).isEqualTo("driver upgrade");
    assertThat(reason(post(port, Alerts.xid("gpu-node-4", "79")), 0)).isEqualTo("paused");
    await().atMost(Duration.ofSeconds(10)).until(() -> events("gpu-node-4", "RemediationSuppressed") == 1);

    assertThat(send(port, "DELETE", "/api/v1/pause", null, null).statusCode()).isEqualTo(200);
    assertThat(reason(post(port, Alerts.xid("gpu-node-5", "79")), 0)).isEqualTo("actions_applied");
  }
}
