package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Browser;
import io.gpuremediator.testing.DraObjects;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in Debian's headless Chromium, against the service on 127.0.0.1 and the emulated API server:
 * a quarantined node, a storm with the breaker open, a pause set from the page, markup in a reason shown as text,
 * the open status listener, and an ended episode in the recovery row. A screenshot of each state is written under
 * {@code target/status-page/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StatusPageBrowserTest {
  private static final String TOKEN = "status-page-write-token-0123";
  private static final String READ_TOKEN = "status-page-read-token-4567";
  private static final Path SHOTS = Path.of("target", "status-page");
  private static final Duration SEEN = Duration.ofSeconds(20);
  private static final String ZONE = "topology.kubernetes.io/zone";
  private static final Path STATUS_PAGE_PLAYBOOKS = Path.of("src/test/resources/playbooks/status-page").toAbsolutePath();
  @TempDir static Path dir;
  private EmulatedApiServer server;
  private KubernetesClient client;
  private RunningService service;
  private Browser browser;
  private int port;

  @BeforeAll
  void start() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 20);
    for (int i = 0; i < 20; i++) {
      String zone = i < 10 ? "zone-a" : "zone-b";
      client.nodes().withName("gpu-node-" + i).edit(n -> {
        n.getMetadata().getLabels().put(ZONE, zone);
        return n;
      });
    }
    Tokens.write(dir, TOKEN);
    Tokens.writeReader(dir, READ_TOKEN);
    // Beside the immediate playbooks, one that drains (the release and retry buttons), one that collects evidence
    // before it drains (the evidence Job's name on the page) and one that fences a GPU of a DRA node (the fleet map's
    // fenced cell and the node row's GPUs).
    Path config = ServiceConfig.writeWithReader(dir.resolve("remediator.yaml"), ServiceConfig.IMMEDIATE_PLAYBOOKS + ", "
        + STATUS_PAGE_PLAYBOOKS, "status_listen: 127.0.0.1:0\n", "leader_election: {enabled: false}\n",
        "safety: {max_unavailable: 50%, max_unavailable_gpus: 100%, breaker: {nodes: 5, window: 10m}, domains: [{label: " + ZONE
        + ", max_unavailable: 100%, incident: {nodes: 2, window: 10m}}]}\n");
    service = RunningService.ready(config, KubeApi.of(server.client()), Alerts.liveClock(), Optional.of(TOKEN));
    port = service.port();
    browser = Browser.start(dir.resolve("chromium-profile"));
  }

  @AfterAll
  void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
    if (service != null) {
      service.close();
    }
    client.close();
    server.close();
  }

  @Test
  @Order(1)
  void thePageIsServedWithAStrictPolicyAndNothingFromElsewhere() throws Exception {
    HttpResponse<String> page = send("GET", "/", null, null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp)
        .contains("default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'")
        .doesNotContain("unsafe-inline", "unsafe-eval", "http:", "https:"));
    for (String path : new String[] {"/", "/status/status.js", "/status/status.css"}) {
      assertThat(send("GET", path, null, null).body()).as(path + " loads nothing from elsewhere")
          .doesNotContain("http://", "https://", "//cdn", "@import", "url(");
    }
    assertThat(page.body()).doesNotContainPattern("<script(?![^>]*\\bsrc=)").doesNotContain("style=", "onclick");
  }

  @Test
  @Order(2)
  void aQuarantinedNodeShowsInItsStageWithTheReadOnlyToken() throws Exception {
    browser.open(url(port));
    await().atMost(SEEN).until(() -> !Boolean.TRUE.equals(browser.script("return document.getElementById('token-form').hidden;")));
    browser.type("#token", READ_TOKEN);
    browser.click("#token-save");
    assertThat(post("/api/v1/alerts", Alerts.json(Alerts.xid("gpu-node-1", "79")), TOKEN).statusCode()).isEqualTo(200);
    await().atMost(SEEN).until(() -> browser.text("table[data-stage='quarantined'] tr[data-node='gpu-node-1']") != null);
    assertThat(browser.text("#decisions tbody tr[data-node='gpu-node-1']")).contains("actions_applied");
    assertThat(browser.text("#unavailable")).isEqualTo("1");
    assertThat(browser.text("#budget-warnings")).as("20 nodes at 50%: the budget allows 10").isEqualTo("none");
    browser.screenshot(SHOTS.resolve("quarantined.png"));
  }

  @Test
  @Order(3)
  void aStormShowsTheBreakerOpenWithItsReason() throws Exception {
    Alert[] storm = new Alert[6];
    for (int i = 0; i < storm.length; i++) {
      storm[i] = Alerts.xid("gpu-node-" + (10 + i), "79");
    }
    assertThat(post("/api/v1/alerts", Alerts.json(storm), TOKEN).statusCode()).isEqualTo(200);
    await().atMost(SEEN).until(() -> "open".equals(browser.text("#breaker-state")));
    // gpu-node-1's episode (the test before) started within the window too: 7 nodes.
    assertThat(browser.text("#breaker-reason")).contains("7 nodes started firing remediation alerts", "gpu-node-15");
    assertThat(browser.text("#decisions tbody")).contains("breaker_open");
    browser.screenshot(SHOTS.resolve("breaker-open.png"));
  }

  @Test
  @Order(4)
  void theReadOnlyTokenCannotPauseFromThePage() throws Exception {
    browser.type("#pause-reason-input", "looking only");
    browser.click("#pause-set");
    await().atMost(SEEN).until(() -> String.valueOf(browser.text("#message")).contains("HTTP 403"));
    assertThat(safety().getJsonObject("pause").getBoolean("paused")).isFalse();
  }

  @Test
  @Order(5)
  void aPauseSetFromThePageAsksForAReasonAndHolds() throws Exception {
    // The form hides once a token works: show it again to switch to the full token, as a user would reload.
    browser.script("document.getElementById('token-form').hidden = false;");
    browser.type("#token", Tokens.operator(TOKEN));
    browser.click("#token-save");
    browser.type("#pause-reason-input", "");
    browser.click("#pause-set");
    await().atMost(SEEN).until(() -> "a reason is required".equals(browser.text("#message")));
    browser.type("#pause-reason-input", "firmware rollout on rack 12");
    browser.type("#pause-duration", "2h");
    browser.click("#pause-set");
    await().atMost(SEEN).until(() -> "paused".equals(browser.text("#pause-state")));
    JsonObject pause = safety().getJsonObject("pause");
    assertThat(pause.getBoolean("paused")).isTrue();
    assertThat(pause.getString("reason")).isEqualTo("firmware rollout on rack 12");
    assertThat(browser.text("#pause-reason")).isEqualTo("firmware rollout on rack 12");
    assertThat(browser.text("#pause-detail")).contains("until", "by POST /api/v1/pause from 127.0.0.1");
    browser.screenshot(SHOTS.resolve("paused.png"));
    browser.type("#pause-reason-input", "rollout done");
    browser.click("#pause-resume");
    await().atMost(SEEN).until(() -> "not paused".equals(browser.text("#pause-state")));
  }

  @Test
  @Order(6)
  void markupInAReasonOrAnAlertNameShowsAsText() throws Exception {
    String hostile = "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\"><b>bold</b>";
    assertThat(post("/api/v1/pause", new JsonObject().put("reason", hostile).put("duration", "1h").encode(), TOKEN)
        .statusCode()).isEqualTo(200);
    Alert odd = Alerts.alert(AlertStatus.FIRING, "<script>window.pwned=3</script>", "fp0ddca11",
        Map.of("node", "gpu-node-3", "severity", "critical", "remediate", "true"));
    assertThat(post("/api/v1/alerts", Alerts.json(odd), TOKEN).statusCode()).isEqualTo(200);
    await().atMost(SEEN).until(() -> hostile.equals(browser.text("#pause-reason"))
        && String.valueOf(browser.text("#decisions tbody")).contains("<script>window.pwned=3</script>"));
    assertThat(browser.script("return window.pwned === undefined;")).isEqualTo(true);
    assertThat(browser.script("return document.querySelectorAll('#pause-reason *, #decisions tbody script, "
        + "#decisions tbody img, b').length;")).isEqualTo(0);
    browser.screenshot(SHOTS.resolve("escaped.png"));
    assertThat(send("DELETE", "/api/v1/pause", "{\"reason\": \"test over\"}", TOKEN).statusCode()).isEqualTo(200);
  }

  @Test
  @Order(7)
  void theStatusListenerShowsThePageWithoutATokenAndChangesNothing() throws Exception {
    int open = service.statusPort().orElseThrow();
    browser.open(url(open));
    await().atMost(SEEN).until(() -> "open".equals(browser.text("#breaker-state"))
        && browser.text("table[data-stage='quarantined'] tr[data-node='gpu-node-1']") != null);
    assertThat(browser.script("return document.getElementById('token-form').hidden;")).isEqualTo(true);
    browser.type("#breaker-reset-reason", "from the open port");
    browser.click("#breaker-reset");
    await().atMost(SEEN).until(() -> String.valueOf(browser.text("#message")).contains("HTTP 404"));
    assertThat(safety().getJsonObject("breaker").getString("state")).isEqualTo("open");
    browser.screenshot(SHOTS.resolve("status-listen.png"));
  }

  @Test
  @Order(8)
  void anEndedEpisodeShowsInTheRecoveryRow() throws Exception {
    browser.open(url(port));
    await().atMost(SEEN).until(() -> "no episode ended yet".equals(browser.text("#recovery")));
    assertThat(browser.text("#incidents")).isEqualTo("none yet");
    assertThat(post("/api/v1/nodes/gpu-node-1/release", "{\"reason\": \"GPU reseated\"}", TOKEN).statusCode()).isEqualTo(200);
    await().atMost(SEEN).until(() -> String.valueOf(browser.text("#recovery")).startsWith("released by a human 1 (mean "));
    assertThat(service.get("/metrics").body()).as("the release through the API is a human's").contains(
        "remediator_episode_duration_seconds_count{playbook=\"gpu-hardware-xid\",outcome=\"released\",closed_by=\"human\",} 1.0");
    assertThat(browser.text("#recovery")).endsWith(" from the fault)");
    browser.screenshot(SHOTS.resolve("recovery.png"));
  }

  @Test
  @Order(9)
  void retryAndReleaseFromThePageMoveTheNodesStage() throws Exception {
    assertThat(post("/api/v1/breaker/reset", "{\"reason\": \"the storm is over\"}", TOKEN).statusCode()).isEqualTo(200);
    // A pod under two PodDisruptionBudgets: its drain fails at once, and is not retried by itself.
    Nodes.runningPod(client, "ml", "trainer-0", "gpu-node-2", Map.of("app", "llm"));
    server.budget("ml", "a", "app", "llm", 5);
    server.budget("ml", "b", "app", "llm", 5);
    Alert drain = Alerts.alert(AlertStatus.FIRING, "StatusPageDrain", "fpdrain0002",
        Map.of("node", "gpu-node-2", "severity", "critical", "remediate", "true"));
    assertThat(post("/api/v1/alerts", Alerts.json(drain), TOKEN).statusCode()).isEqualTo(200);
    String row = "table[data-stage='%s'] tr[data-node='gpu-node-2']";
    await().atMost(SEEN).until(() -> browser.text(String.format(row, "drain_failed")) != null);

    browser.type("#node-reason", "");
    browser.click(String.format(row, "drain_failed") + " button.retry");
    await().atMost(SEEN).until(() -> "a reason is required".equals(browser.text("#node-message")));
    client.policy().v1().podDisruptionBudget().inNamespace("ml").withName("b").delete();
    browser.type("#node-reason", "second budget removed");
    browser.click(String.format(row, "drain_failed") + " button.retry");
    await().atMost(SEEN).until(() -> browser.text(String.format(row, "drained")) != null);
    assertThat(browser.text("#node-message")).contains("/api/v1/nodes/gpu-node-2/retry: done");
    assertThat(server.evictionsGranted("ml", "trainer-0")).isEqualTo(1);
    browser.screenshot(SHOTS.resolve("retried.png"));

    browser.type("#node-reason", "trainer moved; GPUs checked by hand");
    browser.click(String.format(row, "drained") + " button.release");
    await().atMost(SEEN).until(() -> browser.text(String.format(row, "drained")) == null
        && !Boolean.TRUE.equals(client.nodes().withName("gpu-node-2").get().getSpec().getUnschedulable()));
    assertThat(browser.text("#node-message")).contains("/api/v1/nodes/gpu-node-2/release: done");
    assertThat(new JsonObject(send("GET", "/api/v1/decisions?limit=5", null, TOKEN).body()).encode())
        .contains("trainer moved; GPUs checked by hand", "second budget removed");
  }

  @Test
  @Order(10)
  void theFleetMapShowsEverySelectedNodeByZoneColouredByItsStage() throws Exception {
    Alert ecc = Alerts.alert(AlertStatus.FIRING, "GpuEccUncorrectable", "fpecc00014",
        Map.of("node", "gpu-node-14", "gpu", "0", "severity", "critical", "remediate", "true"));
    assertThat(post("/api/v1/alerts", Alerts.json(ecc), TOKEN).statusCode()).isEqualTo(200);
    String cell = "#fleet-map .map-group[data-value='%s'] .cell[data-node='%s']";
    await().atMost(SEEN).until(() -> "quarantined".equals(browser.script("const c = document.querySelector(arguments[0]);"
        + " return c && c.dataset.stage;", String.format(cell, "zone-b", "gpu-node-14"))));
    assertThat(browser.script("return document.querySelectorAll('#fleet-map .map-group').length;")).isEqualTo(2);
    assertThat(browser.script("return document.querySelectorAll('#fleet-map .cell').length;")).isEqualTo(20);
    assertThat(browser.script("return document.querySelectorAll(\"#fleet-map .map-group[data-value='zone-a'] .cell\").length;"))
        .isEqualTo(10);
    assertThat(browser.script("return document.querySelector(arguments[0]).className;", String.format(cell, "zone-a", "gpu-node-2")))
        .as("released and back in service").isEqualTo("cell stage-in_service");
    assertThat(browser.text("#fleet-map .map-group[data-value='zone-b'] h3")).startsWith(ZONE + "=zone-b (10): ")
        .contains("quarantined ");
    browser.screenshot(SHOTS.resolve("fleet-map.png"));

    // Another label: the clique label no node carries puts every node in one group that says so.
    browser.type("#map-label", "nvidia.com/gpu.clique");
    browser.script("document.getElementById('map-label').dispatchEvent(new Event('change'));");
    await().atMost(SEEN).until(() -> String.valueOf(browser.text("#fleet-map .map-group h3"))
        .startsWith("without nvidia.com/gpu.clique (20): "));
    assertThat(send("GET", "/api/v1/fleet?group_by=not%20a%20label", null, TOKEN).statusCode()).isEqualTo(400);
  }

  @Test
  @Order(11)
  void aZonesIncidentShowsOnThePageUntilItsButtonResetsIt() throws Exception {
    Alert[] zoneA = new Alert[3];
    for (int i = 0; i < zoneA.length; i++) {
      zoneA[i] = Alerts.xid("gpu-node-" + (5 + i), "79");
    }
    assertThat(post("/api/v1/alerts", Alerts.json(zoneA), TOKEN).body()).contains("domain_incident");
    await().atMost(SEEN).until(() -> "1 open".equals(browser.text("#incident-state")));
    assertThat(browser.text("#incident-list")).contains(ZONE + "=zone-a since ", "nodes of " + ZONE + "=zone-a started"
        + " faulting");
    browser.screenshot(SHOTS.resolve("incident.png"));
    browser.type("#incident-reset-reason", "the zone's switch replaced");
    browser.click("#incident-list button");
    await().atMost(SEEN).until(() -> "none open".equals(browser.text("#incident-state")));
    assertThat(new JsonObject(send("GET", "/api/v1/safety", null, TOKEN).body()).getJsonArray("incidents")).isEmpty();
  }

  @Test
  @Order(12)
  void aNodesEvidenceJobIsNamedInItsRow() throws Exception {
    Alert evidence = Alerts.alert(AlertStatus.FIRING, "StatusPageEvidence", "fpevidence16",
        Map.of("node", "gpu-node-16", "severity", "critical", "remediate", "true"));
    assertThat(post("/api/v1/alerts", Alerts.json(evidence), TOKEN).statusCode()).isEqualTo(200);
    String job = "gpu-remediator/" + await().atMost(SEEN).until(() -> client.batch().v1().jobs().inNamespace("gpu-remediator")
        .withLabel("gpu-remediator.io/step", "collect").list().getItems(), jobs -> !jobs.isEmpty()).get(0).getMetadata().getName();
    await().atMost(SEEN).until(() -> ("evidence: " + job).equals(browser.text("tr[data-node='gpu-node-16'] .evidence")));
    assertThat(new JsonObject(send("GET", "/api/v1/nodes", null, TOKEN).body()).getJsonArray("nodes").stream()
        .map(JsonObject.class::cast).filter(n -> n.getString("node").equals("gpu-node-16")).findFirst().orElseThrow()
        .getJsonArray("evidence").getList()).containsExactly(job);
    browser.screenshot(SHOTS.resolve("evidence.png"));
  }

  @Test
  @Order(13)
  void aFencedGpuShowsOnTheFleetMapAndInItsNodesRow() throws Exception {
    DraObjects.slice(client, "gpu-node-9", 8);
    String uuid = DraObjects.uuid("gpu-node-9", 4);
    Alert fence = Alerts.alert(AlertStatus.FIRING, "StatusPageFence", "fpfence9",
        Map.of("node", "gpu-node-9", "gpu", "4", "UUID", uuid, "severity", "critical", "remediate", "true"));
    assertThat(post("/api/v1/alerts", Alerts.json(fence), TOKEN).statusCode()).isEqualTo(200);
    String cell = "#fleet-map .cell[data-node='gpu-node-9']";
    await().atMost(SEEN).until(() -> browser.script("const c = document.querySelector(arguments[0]);"
        + " return c && c.title;", cell), title -> ("gpu-node-9: fenced (fenced GPU " + uuid + ")").equals(title));
    assertThat(browser.script("return document.querySelector(arguments[0]).dataset.stage;", cell)).isEqualTo("fenced");
    await().atMost(SEEN).until(() -> String.valueOf(browser.text("tr[data-node='gpu-node-9'] .fenced"))
        .equals("fenced: " + uuid + " (gpu-4, rule gpu-remediator.gpu-node-9.gpu-4)"));
    JsonObject node = new JsonObject(send("GET", "/api/v1/nodes", null, TOKEN).body()).getJsonArray("nodes").stream()
        .map(JsonObject.class::cast).filter(n -> n.getString("node").equals("gpu-node-9")).findFirst().orElseThrow();
    assertThat(node.getBoolean("unschedulable")).isFalse();
    assertThat(node.getJsonArray("fenced_gpus").getJsonObject(0).getMap()).containsEntry("uuid", uuid)
        .containsEntry("device", "gpu-4").containsEntry("rule", "gpu-remediator.gpu-node-9.gpu-4");
    browser.screenshot(SHOTS.resolve("fenced-gpu.png"));
  }

  private static String url(int port) {
    return "http://127.0.0.1:" + port + "/";
  }

  private JsonObject safety() throws Exception {
    return new JsonObject(send("GET", "/api/v1/safety", null, TOKEN).body());
  }

  private HttpResponse<String> post(String path, String body, String token) throws Exception {
    return send("POST", path, body, token);
  }

  private HttpResponse<String> send(String method, String path, String body, String token) throws Exception {
    // The write token of the page is the operator's; the webhook's posts alerts only.
    String role = TOKEN.equals(token) && !path.equals("/api/v1/alerts") ? Tokens.operator(TOKEN) : token;
    return Http.send(port, method, path, body == null ? new byte[0] : Http.text(body), "application/json",
        Optional.ofNullable(role));
  }
}
