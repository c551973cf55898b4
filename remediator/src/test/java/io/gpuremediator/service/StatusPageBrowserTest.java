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
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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
    Files.writeString(dir.resolve("token"), TOKEN);
    Files.writeString(dir.resolve("read-token"), READ_TOKEN);
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nstatus_listen: 127.0.0.1:0\n"
        + "auth: {bearer_token_file: token, read_token_file: read-token}\nplaybooks: ["
        + Path.of("src/test/resources/playbooks/immediate").toAbsolutePath() + "]\nleader_election: {enabled: false}\n"
        + "safety: {max_unavailable: 50%, breaker: {nodes: 5, window: 10m}}\n");
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
    browser.type("#token", TOKEN);
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
    await().atMost(SEEN).until(() -> String.valueOf(browser.text("#recovery")).startsWith("released 1 (mean "));
    assertThat(browser.text("#recovery")).endsWith(" from the fault)");
    browser.screenshot(SHOTS.resolve("recovery.png"));
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
    return Http.send(port, method, path, body == null ? new byte[0] : Http.text(body), "application/json",
        Optional.ofNullable(token));
  }
}
