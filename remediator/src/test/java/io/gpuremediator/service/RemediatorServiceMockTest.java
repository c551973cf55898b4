package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RawHttp;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The whole service over HTTP against the fabric8 mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class RemediatorServiceMockTest {
  static KubernetesMockServer server;
  static KubernetesClient mockClient;
  @TempDir static Path dir;

  private static final String TOKEN = "s3cret-token-for-tests-0123456789";
  private static KubernetesClient client;
  private static RunningService service;
  private static int port;
  private static Path playbooks;

  @BeforeAll
  static void start() throws Exception {
    client = Nodes.noRetry(mockClient);
    for (int i = 1; i <= 10; i++) {
      client.nodes().resource(Nodes.gpu("gpu-node-" + i, "10.0.0." + i)).create();
    }
    client.nodes().resource(Nodes.node("cpu-node-1", "10.0.1.1", Map.of())).create();
    playbooks = Files.createDirectories(dir.resolve("playbooks"));
    try (Stream<Path> shipped = Files.list(ServiceConfig.IMMEDIATE_PLAYBOOKS)) {
      for (Path p : shipped.toList()) {
        Files.copy(p, playbooks.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Tokens.write(dir, TOKEN + "\n");
    // Fleet limits wide enough for an 11-node test fleet: these tests are about the service, not the limits.
    service = RunningService.started(config("auth: {webhook_token_file: token, operator_token_file: operator-token, ledger_key_file: ledger-key}\nmax_body_bytes: 1048576\n"
        + "safety: {max_unavailable: 100%, rate_limit: 1000/1h, breaker: {nodes: 50, window: 10m}}\n"), KubeApi.of(client),
        Alerts.liveClock(), Optional.of(TOKEN)).awaitReady();
    port = service.port();
  }

  static RemediatorConfig config(String extra) throws IOException {
    Path f = dir.resolve("remediator-" + extra.hashCode() + ".yaml");
    Files.writeString(f, "listen: 127.0.0.1:0\nplaybooks: [playbooks]\n" + extra);
    return ConfigLoader.load(f).config().orElseThrow();
  }

  @AfterAll
  static void stop() {
    service.close();
    client.close();
  }

  private static HttpResponse<String> post(String body, String contentType, String token) throws Exception {
    return post(port, body, contentType, token);
  }

  private static HttpResponse<String> post(int toPort, String body, String contentType, String token) throws Exception {
    return Http.send(toPort, "POST", "/api/v1/alerts", Http.text(body), contentType, Optional.ofNullable(token));
  }

  private static HttpResponse<String> post(Alert... alerts) throws Exception {
    return post(Alerts.json(alerts), "application/json", TOKEN);
  }

  private static HttpResponse<String> get(String path, boolean auth) throws Exception {
    return Http.send(port, "GET", path, new byte[0], "", auth ? Optional.of(Tokens.operator(TOKEN)) : Optional.empty());
  }

  private static HttpResponse<String> control(String node, String what, String body, String contentType, String token)
      throws Exception {
    return Http.send(port, "POST", "/api/v1/nodes/" + node + "/" + what, Http.text(body), contentType,
        Optional.ofNullable(TOKEN.equals(token) ? Tokens.operator(TOKEN) : token));
  }

  @Test
  void aHumanReleasesAQuarantinedNodeThroughTheApi() throws Exception {
    assertThat(post(Alerts.xid("gpu-node-9", "79")).statusCode()).isEqualTo(200);
    HttpResponse<String> r = control("gpu-node-9", "release", "{\"reason\": \"GPU reseated\"}", "application/json", TOKEN);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonObject d = new JsonObject(r.body()).getJsonArray("decisions").getJsonObject(0);
    assertThat(d.getString("reason")).isEqualTo("released_by_human");
    assertThat(d.getString("detail")).contains("GPU reseated");
    assertThat(node("gpu-node-9").getSpec().getUnschedulable()).isNotEqualTo(true);
    assertThat(node("gpu-node-9").getSpec().getTaints()).isNullOrEmpty();
    assertThat(control("gpu-node-9", "release", "{\"reason\": \"again\"}", "application/json", TOKEN).statusCode())
        .as("no episode left").isEqualTo(409);
  }

  @Test
  void nodeControlsRefuseBadRequestsAndChangeNothing() throws Exception {
    assertThat(control("gpu-node-10", "release", "{\"reason\": \"x\"}", "application/json", null).statusCode()).isEqualTo(401);
    assertThat(control("gpu-node-10", "release", "reason=x", "text/plain", TOKEN).statusCode()).isEqualTo(415);
    assertThat(control("gpu-node-10", "release", "{}", "application/json", TOKEN).statusCode()).isEqualTo(400);
    assertThat(control("gpu-node-10", "retry", "[1]", "application/json", TOKEN).statusCode()).isEqualTo(400);
    assertThat(control("no-such-node", "release", "{\"reason\": \"x\"}", "application/json", TOKEN).statusCode())
        .isEqualTo(404);
    assertThat(control("Bad_Name", "retry", "{\"reason\": \"x\"}", "application/json", TOKEN).statusCode()).isEqualTo(404);
    assertThat(control("gpu-node-10", "retry", "{\"reason\": \"x\"}", "application/json", TOKEN).statusCode())
        .as("nothing failed to retry").isEqualTo(409);
    assertThat(node("gpu-node-10").getMetadata().getAnnotations()).doesNotContainKey("gpu-remediator.io/state");
  }

  private static Node node(String name) {
    return client.nodes().withName(name).get();
  }

  private static long events(String node) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> e.getInvolvedObject().getName().equals(node)).count();
  }

  @Test
  void firingHardwareXidQuarantinesTheNodeInOneCall() throws Exception {
    HttpResponse<String> r = post(Alerts.xid("gpu-node-1", "79"));
    assertThat(r.statusCode()).isEqualTo(200);
    JsonObject body = new JsonObject(r.body());
    assertThat(body.getJsonObject("outcomes").getInteger("applied")).isEqualTo(1);
    assertThat(body.getJsonArray("decisions").getJsonObject(0).getString("reason")).isEqualTo("actions_applied");
    Node n = node("gpu-node-1");
    assertThat(n.getSpec().getUnschedulable()).isTrue();
    assertThat(n.getSpec().getTaints()).anySatisfy(t -> assertThat(t.getValue()).isEqualTo("xid-79"));
    assertThat(n.getStatus().getConditions()).anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("GpuHealthy=False"));
    await().atMost(Duration.ofSeconds(10)).until(() -> events("gpu-node-1") == 1); // written after the answer
  }

  @Test
  void resolvedWebhookReleasesWhereThePlaybookSaysSo() throws Exception {
    Alert xid = Alerts.xid("gpu-node-2", "48");
    post(xid);
    assertThat(post(Alerts.resolved(xid)).statusCode()).isEqualTo(200);
    assertThat(node("gpu-node-2").getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
    assertThat(node("gpu-node-2").getSpec().getTaints()).isEmpty();

    Alert remap = Alerts.alert(AlertStatus.FIRING, "GpuRowRemapFailure", "feed01",
        Map.of("node", "gpu-node-2", "gpu", "1", "severity", "critical", "remediate", "true"));
    post(remap);
    HttpResponse<String> r = post(Alerts.resolved(remap));
    assertThat(new JsonObject(r.body()).getJsonArray("decisions").getJsonObject(0).getString("reason")).isEqualTo("no_on_resolved");
    assertThat(node("gpu-node-2").getSpec().getUnschedulable()).isTrue();
    assertThat(node("gpu-node-2").getMetadata().getLabels()).containsEntry("gpu-remediator.io/rma", "true");
  }

  @Test
  void applicationXidChangesNothing() throws Exception {
    String before = node("gpu-node-3").getMetadata().getResourceVersion();
    HttpResponse<String> r = post(Alerts.alert(AlertStatus.FIRING, "GpuXidApplicationError", "a13",
        Map.of("node", "gpu-node-3", "xid", "13", "gpu", "0", "severity", "info")));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(r.body()).getJsonArray("decisions").getJsonObject(0).getString("reason")).isEqualTo("no_playbook");
    assertThat(node("gpu-node-3").getMetadata().getResourceVersion()).isEqualTo(before);
    assertThat(events("gpu-node-3")).isZero();
  }

  @ParameterizedTest(name = "node label {0}")
  @ValueSource(strings = {"../../etc/passwd", "$(reboot)", "GPU-NODE-4", "gpu-n\u043ede-4", "gpu-node-4;uncordon", "gpu-node-4\n"})
  void hostileNodeLabelsChangeNothing(String label) throws Exception {
    Map<String, String> before = resourceVersions();
    Alert a = Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "bad" + Integer.toHexString(label.hashCode()),
        Map.of("node", label, "Hostname", "gpu-node-4", "xid", "79", "gpu", "0", "severity", "critical", "remediate", "true"));
    HttpResponse<String> r = post(a);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonObject d = new JsonObject(r.body()).getJsonArray("decisions").getJsonObject(0);
    assertThat(d.getString("outcome")).isEqualTo("ignored");
    assertThat(d.getString("reason")).isEqualTo("node_unresolved");
    assertThat(d.getString("node")).isEmpty();
    assertThat(resourceVersions()).isEqualTo(before);
  }

  private static Map<String, String> resourceVersions() {
    return client.nodes().list().getItems().stream().collect(Collectors.toMap(
        n -> n.getMetadata().getName(), n -> n.getMetadata().getResourceVersion()));
  }

  @Test
  void malformedJsonIs400() throws Exception {
    HttpResponse<String> r = post("{\"version\":", "application/json", TOKEN);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(r.body()).getString("error")).isEqualTo("body: malformed JSON at line 1, column 12");
  }

  @Test
  void schemaInvalidBodyIs400NamingTheField() throws Exception {
    String body = Alerts.json(Alerts.xid("gpu-node-5", "79")).replace("\"startsAt\"", "\"startedAt\"");
    HttpResponse<String> r = post(body, "application/json; charset=utf-8", TOKEN);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(r.body()).getString("error")).isEqualTo("alerts[0].startsAt: required");
  }

  @Test
  void deeplyNestedJsonIs400() throws Exception {
    // Under a field the decoder skips, so only the depth limit can refuse it.
    String body = "{\"version\":\"4\",\"extra\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    HttpResponse<String> r = post(body, "application/json", TOKEN);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(r.body()).getString("error")).isEqualTo("body: JSON nested deeper than 16 levels");
  }

  @Test
  void missingTokenIs401() throws Exception {
    HttpResponse<String> r = post(Alerts.json(Alerts.xid("gpu-node-5", "79")), "application/json", null);
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate")).contains("Bearer");
  }

  @Test
  void wrongTokenIs401AndChangesNothing() throws Exception {
    Map<String, String> before = resourceVersions();
    assertThat(post(Alerts.json(Alerts.xid("gpu-node-5", "79")), "application/json", TOKEN + "x").statusCode()).isEqualTo(401);
    assertThat(get("/api/v1/decisions", false).statusCode()).isEqualTo(401);
    assertThat(resourceVersions()).isEqualTo(before);
  }

  @Test
  void nonJsonContentTypeIs415() throws Exception {
    HttpResponse<String> r = post(Alerts.json(Alerts.xid("gpu-node-5", "79")), "text/plain", TOKEN);
    assertThat(r.statusCode()).isEqualTo(415);
  }

  @Test
  void oversizedDeclaredBodyIs413BeforeItIsRead() throws Exception {
    long tenMiB = 10L * 1024 * 1024;
    String head = "POST /api/v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN
        + "\r\nContent-Type: application/json\r\nContent-Length: " + tenMiB + "\r\n\r\n";
    // Only 1 KiB of the announced 10 MiB is ever sent: an answer proves nothing was waited for or buffered.
    assertThat(RawHttp.sendUnfinishedBody(port, head, 1024, false)).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
  }

  @Test
  void oversizedStreamedBodyIs413OnceTheLimitIsPassed() throws Exception {
    String head = "POST /api/v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN
        + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    // 1 MiB limit; 1.5 MiB sent of a body that never ends: the server must stop reading at the limit.
    assertThat(RawHttp.sendUnfinishedBody(port, head, 1536 * 1024, true)).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
  }

  @Test
  void transientKubernetesWriteFailureIs503SoAlertmanagerRetries() throws Exception {
    server.expect().put().withPath("/api/v1/nodes/gpu-node-6")
        .andReturn(500, new StatusBuilder().withCode(500).withMessage("etcdserver: request timed out").build()).always();
    HttpResponse<String> r = post(Alerts.xid("gpu-node-6", "79"));
    assertThat(r.statusCode()).isEqualTo(503);
    JsonObject d = new JsonObject(r.body()).getJsonArray("decisions").getJsonObject(0);
    assertThat(d.getString("outcome")).isEqualTo("failed");
    assertThat(d.getString("reason")).isEqualTo("kube_unavailable");
    assertThat(node("gpu-node-6").getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
  }

  @Test
  void notReadyIs503() throws Exception {
    try (KubernetesClient dead = Nodes.unreachable();
        RunningService unready = RunningService.started(
            config("auth: {insecure_no_auth: true}\nleader_election: {enabled: false}\n"), KubeApi.of(dead), Alerts.liveClock(),
            Optional.empty())) {
      int unreadyPort = unready.port();
      HttpResponse<String> r = post(unreadyPort, Alerts.json(Alerts.xid("gpu-node-7", "79")), "application/json", null);
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(new JsonObject(r.body()).getString("error")).isEqualTo("not ready: Kubernetes node watch not synced");
      HttpResponse<String> ready = Http.get(unreadyPort, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(503);
    }
  }

  @Test
  void decisionsAreListedNewestFirstWithEveryField() throws Exception {
    post(Alerts.alert(AlertStatus.FIRING, "GpuThermal", "th1", Map.of("node", "gpu-node-7", "severity", "warning")));
    post(Alerts.alert(AlertStatus.FIRING, "GpuEccCorrectableRate", "ecc2", Map.of("node", "gpu-node-7", "severity", "warning")));
    HttpResponse<String> r = get("/api/v1/decisions?limit=2", true);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonArray list = new JsonObject(r.body()).getJsonArray("decisions");
    assertThat(list).hasSize(2);
    JsonObject newest = list.getJsonObject(0);
    assertThat(newest.getString("alertname")).isEqualTo("GpuEccCorrectableRate");
    assertThat(newest.fieldNames()).contains("time", "fingerprint", "starts_at", "alertname", "status", "node", "playbook",
        "outcome", "reason", "actions");
    assertThat(list.getJsonObject(1).getString("alertname")).isEqualTo("GpuThermal");
    assertThat(get("/api/v1/decisions?limit=0", true).statusCode()).isEqualTo(400);
    assertThat(get("/api/v1/decisions?limit=lots", true).statusCode()).isEqualTo(400);
  }

  @Test
  void nodesUnderRemediationAreListedWithWhatWeChanged() throws Exception {
    post(Alerts.xid("gpu-node-8", "94"));
    await().atMost(Duration.ofSeconds(5)).until(() -> get("/api/v1/nodes", true).body().contains("gpu-node-8"));
    JsonObject n = new JsonObject(get("/api/v1/nodes", true).body()).getJsonArray("nodes").stream()
        .map(JsonObject.class::cast).filter(o -> o.getString("node").equals("gpu-node-8")).findFirst().orElseThrow();
    assertThat(n.getString("state")).isEqualTo("quarantined");
    assertThat(n.getJsonArray("playbooks")).containsExactly("gpu-hardware-xid");
    assertThat(n.getString("since")).isNotNull();
    assertThat(n.getJsonObject("changes").fieldNames()).contains("cordon", "taint/gpu-remediator.io/unhealthy/NoSchedule",
        "condition/GpuHealthy");
  }

  @Test
  void metricsCountDecisionsAndTimeWebhooksAndActions() throws Exception {
    post(Alerts.xid("gpu-node-5", "79"));
    String metrics = get("/metrics", false).body();
    assertThat(metrics).contains("remediator_decisions_total{outcome=\"applied\",reason=\"actions_applied\",}");
    assertThat(metrics).contains("remediator_alerts_received_total{status=\"firing\",}");
    assertThat(metrics).contains("remediator_webhook_duration_seconds_bucket{le=\"0.05\",}");
    assertThat(metrics).contains("remediator_action_duration_seconds_count{action=\"taint\",outcome=\"applied\",}");
    // The Event is written after the answer: its time is counted once it is.
    await().atMost(Duration.ofSeconds(10)).until(() -> get("/metrics", false).body()
        .contains("remediator_action_duration_seconds_count{action=\"event\",outcome=\"applied\",}"));
    assertThat(metrics).contains("remediator_playbook_reload_success 1.0");
    assertThat(metrics).contains("remediator_episode_stage{stage=\"draining\",}", "remediator_episode_stage{stage=\"needs_human\",}");
    assertThat(metrics).contains("# TYPE remediator_step_duration_seconds histogram");
    assertThat(metrics).contains("jvm_memory_bytes_used");
  }

  @Test
  void healthzAnswers() throws Exception {
    assertThat(get("/healthz", false).statusCode()).isEqualTo(200);
  }

  @Test
  void playbookChangesAreReloadedAndAnInvalidVersionKeepsTheOld() throws Exception {
    Path extra = playbooks.resolve("90-thermal.yaml");
    Files.writeString(extra, "playbooks:\n  - name: thermal-note\n    match: ['alertname=\"ReloadProbe\"']\n"
        + "    actions:\n      - event: {reason: GpuHot, message: \"hot\"}\n");
    Alert hot = Alerts.alert(AlertStatus.FIRING, "ReloadProbe", "b01", Map.of("node", "gpu-node-5", "severity", "warning"));
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
        assertThat(new JsonObject(post(hot).body()).getJsonArray("decisions").getJsonObject(0).getString("playbook"))
            .isEqualTo("thermal-note"));
    Files.writeString(extra, "playbooks:\n  - name: thermal-note\n    match: ['alertname=\"ReloadProbe\"']\n    actions: [{reboot: {}}]\n");
    await().atMost(Duration.ofSeconds(15)).until(() ->
        get("/metrics", false).body().contains("remediator_playbook_reload_success 0.0"));
    assertThat(new JsonObject(post(hot).body()).getJsonArray("decisions").getJsonObject(0).getString("playbook"))
        .isEqualTo("thermal-note");
    Files.delete(extra);
    await().atMost(Duration.ofSeconds(15)).until(() ->
        get("/metrics", false).body().contains("remediator_playbook_reload_success 1.0"));
  }
}
