package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.management.UnixOperatingSystemMXBean;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resource exhaustion, against the whole service over HTTP with the mock API: 10,000 idle connections (as many as
 * the file limit allows) and 50 concurrent webhooks of 4 MiB leave {@code /healthz} answering and a normal webhook
 * decided and acted on, while the limits ({@code limits:} in the config) refuse what is beyond them with 503 and
 * Retry-After, and keep the open connections under {@code max_connections}.
 */
@EnableKubernetesMockClient(crud = true)
class OverloadMockTest {
  static KubernetesMockServer server;
  static KubernetesClient mockClient;
  @TempDir static Path dir;

  private static final String TOKEN = "overload-token-0123456789abcdef0123";
  private static final int MAX_CONNECTIONS = 512;
  private static final int IDLE_CONNECTIONS = 10_000;
  private static final int LARGE_WEBHOOKS = 50;
  private static final int LARGE_BYTES = 4 * 1024 * 1024 - 4096;

  private static KubernetesClient client;
  private static RunningService service;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    client = Nodes.noRetry(mockClient);
    Nodes.createFleet(client, 10);
    Tokens.write(dir, TOKEN + "\n");
    Path config = dir.resolve("remediator.yaml");
    // The default body limit (4 MiB), client rate and queue; fewer connections, so that the idle ones overflow them.
    ServiceConfig.write(config, ServiceConfig.SHIPPED_PLAYBOOKS, "safety: {max_unavailable: 100%, rate_limit: 1000/1h, breaker: {nodes: 50, window: 10m}}\n"
        + "limits: {max_connections: " + MAX_CONNECTIONS + "}\n");
    service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN));
    port = service.port();
  }

  @AfterAll
  static void stop() {
    service.close();
    client.close();
  }

  @Test
  void idleConnectionsAndLargeWebhooksNeitherStopProbesNorKeepANormalWebhookOut() throws Exception {
    long idleStarted = System.nanoTime();
    HttpResponse<String> before = post(Alerts.json(Alerts.xid("gpu-node-1", "79")).getBytes(StandardCharsets.UTF_8));
    double beforeMs = (System.nanoTime() - idleStarted) / 1e6;
    assertThat(before.statusCode()).as(before.body()).isEqualTo(200);

    List<SocketChannel> idle = new ArrayList<>();
    // What this JVM holds already (jars, other tests' clients): the idle connections are counted on top of it.
    long held = openFiles();
    int budget = fileBudget();
    int wanted = Math.min(IDLE_CONNECTIONS, budget);
    try {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
      for (int i = 0; i < wanted; i++) {
        idle.add(SocketChannel.open(address));
        if (idle.size() % 1000 == 0) {
          // The service closes the sockets it gives up a moment after accepting them: let it catch up, so that both
          // ends of 10,000 connections never hold the descriptors at once in this one JVM.
          int opened = idle.size();
          await().atMost(Duration.ofSeconds(30)).until(() -> openFiles() <= held + opened + MAX_CONNECTIONS + 1024);
        }
      }
      List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
      byte[] manyAlerts = manyAlerts();
      byte[] hugeString = hugeString();
      for (int i = 0; i < LARGE_WEBHOOKS; i++) {
        flood.add(Http.sendAlone(port, "POST", "/api/v1/alerts", i % 2 == 0 ? manyAlerts : hugeString, "application/json",
            Optional.of(TOKEN)));
      }

      HttpResponse<String> healthz = get("/healthz");
      long normalStarted = System.nanoTime();
      HttpResponse<String> normal = post(Alerts.json(Alerts.xid("gpu-node-2", "79")).getBytes(StandardCharsets.UTF_8));
      double normalMs = (System.nanoTime() - normalStarted) / 1e6;
      long floodStillOpen = flood.stream().filter(f -> !f.isDone()).count();

      assertThat(healthz.statusCode()).isEqualTo(200);
      assertThat(normal.statusCode()).as(normal.body()).isEqualTo(200);
      assertThat(new JsonObject(normal.body()).getJsonArray("decisions").getJsonObject(0).getString("outcome")).isEqualTo("applied");
      assertThat(client.nodes().withName("gpu-node-2").get().getSpec().getTaints())
          .anyMatch(t -> t.getKey().startsWith("gpu-remediator.io/"));

      Map<Integer, Integer> answers = new TreeMap<>();
      for (CompletableFuture<HttpResponse<String>> f : flood) {
        HttpResponse<String> r = f.get();
        answers.merge(r.statusCode(), 1, Integer::sum);
        assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
        if (r.statusCode() == 503) {
          assertThat(r.headers().firstValue("Retry-After")).isPresent();
        }
      }
      String metrics = get("/metrics").body();
      double open = metric(metrics, "remediator_http_connections", "");
      double evicted = metric(metrics, "remediator_http_connections_limited_total", "reason=\"idle_evicted\"");
      System.out.printf(Locale.ROOT, "overload: %,d idle connections opened (%,d asked; the file limit allows %,d), %d open at the"
          + " service after (max %d), %.0f closed to make room; %d webhooks of %.1f MiB: answers %s; /healthz %d; a normal webhook"
          + " %.0f ms idle, %.0f ms under load, with %d of the large ones still in progress%n", idle.size(), IDLE_CONNECTIONS,
          budget, (long) open, MAX_CONNECTIONS, evicted, LARGE_WEBHOOKS, LARGE_BYTES / 1048576.0, answers,
          healthz.statusCode(), beforeMs, normalMs, floodStillOpen);
      assertThat(open).isLessThanOrEqualTo(MAX_CONNECTIONS);
      if (idle.size() > MAX_CONNECTIONS) {
        assertThat(evicted).isGreaterThan(0);
      }
      assertThat(answers.getOrDefault(200, 0) + answers.getOrDefault(503, 0)).isEqualTo(LARGE_WEBHOOKS);
    } finally {
      for (SocketChannel c : idle) {
        c.close();
      }
    }
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
  }

  /**
   * Sockets this JVM may still open for idle connections: its spare file descriptors, less the service's side of
   * the connections it keeps and a margin for everything else.
   */
  private static int fileBudget() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
      return (int) Math.max(0, os.getMaxFileDescriptorCount() - os.getOpenFileDescriptorCount() - MAX_CONNECTIONS - 1024);
    }
    return IDLE_CONNECTIONS;
  }

  private static long openFiles() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os ? os.getOpenFileDescriptorCount() : 0;
  }

  /** Alerts for a node outside the selector, as many as fit in a large body. */
  private static byte[] manyAlerts() {
    String one = Alerts.json(Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "fp0",
        Map.of("node", "cpu-node-1", "xid", "79", "gpu", "0", "severity", "critical", "remediate", "true")));
    JsonObject payload = new JsonObject(one);
    JsonObject alert = payload.getJsonArray("alerts").getJsonObject(0);
    JsonArray alerts = new JsonArray();
    int each = alert.copy().put("fingerprint", "0".repeat(16)).encode().length() + 1;
    for (int i = 0; i < (LARGE_BYTES - one.length()) / each; i++) {
      alerts.add(alert.copy().put("fingerprint", String.format(Locale.ROOT, "%016x", i)));
    }
    return payload.put("alerts", alerts).encode().getBytes(StandardCharsets.UTF_8);
  }

  /** One alert whose description is most of a large body. */
  private static byte[] hugeString() {
    JsonObject payload = new JsonObject(Alerts.json(Alerts.xid("gpu-node-3", "79")));
    payload.getJsonArray("alerts").getJsonObject(0).getJsonObject("annotations").put("description", "x".repeat(LARGE_BYTES - 2048));
    return payload.encode().getBytes(StandardCharsets.UTF_8);
  }

  /** A sample of the text exposition: the metric with these labels ({@code name="value"}, or none). */
  private static double metric(String text, String name, String labels) {
    String series = Pattern.quote(name) + (labels.isEmpty() ? "" : "\\{" + Pattern.quote(labels) + ",?\\}");
    Matcher m = Pattern.compile("(?m)^" + series + " (\\S+)$").matcher(text);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private static HttpResponse<String> post(byte[] body) throws Exception {
    return Http.sendAlone(port, "POST", "/api/v1/alerts", body, "application/json", Optional.of(TOKEN)).get();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return Http.sendAlone(port, "GET", path, new byte[0], "", Optional.empty()).get();
  }
}
