package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpuremediator.alert.Alert;
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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded mutations of valid Alertmanager payloads, posted to the whole service over HTTP against the mock API:
 * wrong types at every path, huge strings, control and bidi characters, deep nesting, truncated and corrupted
 * JSON, 1,000-alert payloads, hostile node labels. {@code make test} runs a fixed count; {@code make fuzz N=...}
 * a long run ({@code -Dfuzz.count}, {@code -Dfuzz.seed}).
 *
 * <p>After the run: every answer was 200, 400 or 413, or the documented 503 while not ready (the node watch being
 * renewed); never another 5xx (the mock API does not fail, so no retry is due); no node outside the valid targets (not a GPU node, or excluded) was touched; the service is alive and
 * decides a normal webhook; the heap after a full GC has not grown with the count; no decision is larger than
 * a few KiB, whatever the payload carried.
 */
@EnableKubernetesMockClient(crud = true)
class WebhookFuzzMockTest {
  static KubernetesMockServer server;
  static KubernetesClient mockClient;
  @TempDir static Path dir;

  private static final long SEED = Long.getLong("fuzz.seed", 20261123L);
  private static final int COUNT = Integer.getInteger("fuzz.count", 1500);
  /**
   * Set by {@code make fuzz}, which runs this JVM with the image's flags under the Deployment's memory limit
   * ({@code -XX:MaxRAM}): the answer time and the resident memory are then held to their targets.
   */
  private static final boolean DEPLOYED = Boolean.getBoolean("fuzz.deployed");
  private static final long DEPLOYMENT_LIMIT = deploymentLimit();
  private static final int GPU_NODES = 20;
  private static final int BODY_LIMIT = 1 << 20;
  private static final String TOKEN = "fuzz-token-0123456789abcdef0123456789";
  private static final List<String> HOSTILE_NODES = List.of("../../etc/passwd", "gpu-node-1\u0000", "GPU-NODE-1", "gpu-node-1 ",
      " gpu-node-1", "gpu-node-1\n", "kube-system", "*", "", "gpu-node-" + "9".repeat(300), "gpu-node-1\"}", "cpu-node-1",
      "gpu-node-excluded", "${jndi:ldap://127.0.0.1/x}", "{{ .Values }}", "gpu\u2011node\u20111", "gpu-node-\u202e1", "%2e%2e%2f");
  private static final String ODD_CHARS = "\u0000\u0007\u001b\n\r\t\u202e\u2066\u2069\u200b\ufeff\ud800\\\"<>&'";

  private static KubernetesClient client;
  private static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    client = Nodes.noRetry(mockClient);
    Nodes.createFleet(client, GPU_NODES);
    client.nodes().resource(Nodes.node("gpu-node-excluded", "10.0.1.2",
        Map.of("nvidia.com/gpu.present", "true", "gpu-remediator.io/exclude", "true"))).create();
    Path playbooks = Files.createDirectories(dir.resolve("playbooks"));
    try (Stream<Path> shipped = Files.list(Path.of("../deploy/playbooks"))) {
      for (Path p : shipped.toList()) {
        Files.copy(p, playbooks.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Tokens.write(dir, TOKEN + "\n");
    Path config = dir.resolve("remediator.yaml");
    // Limits that let valid payloads act, so that the fuzzer exercises the path that writes; and one client that
    // sends as fast as it can.
    ServiceConfig.write(config, "playbooks", "max_body_bytes: " + BODY_LIMIT + "\n"
        + "safety: {max_unavailable: 100%, rate_limit: 100000/1h, breaker: {nodes: 100000, window: 10m}}\n"
        + "limits: {client_rate: 100000/1s}\n");
    service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN));
  }

  @AfterAll
  static void stop() {
    service.close();
    client.close();
  }

  @Test
  void seededMutationsOfValidPayloadsNeverBreakTheServiceNorTouchANodeOutsideTheTargets() throws Exception {
    String cpuVersion = resourceVersion("cpu-node-1");
    String excludedVersion = resourceVersion("gpu-node-excluded");
    Random random = new Random(SEED);
    Map<Integer, Integer> statuses = new TreeMap<>();
    Map<String, Integer> kinds = new TreeMap<>();
    List<String> unexpected = new ArrayList<>();
    List<String> oversized = new ArrayList<>();
    long heapBefore = 0;
    long slowest = 0;
    String slowestKind = "";
    long started = System.nanoTime();
    for (int i = 0; i < COUNT; i++) {
      if (i == Math.min(100, COUNT / 2)) {
        heapBefore = heapAfterGc();   // after a warm-up: caches, JIT and the mock's first objects are in
      }
      if (i > 0 && i % 10_000 == 0) {
        System.out.printf(Locale.ROOT, "fuzzed %,d of %,d payloads in %.0f s: answers %s%n", i, COUNT, (System.nanoTime() - started) / 1e9,
            statuses);
      }
      Mutation m = mutate(random);
      kinds.merge(m.kind(), 1, Integer::sum);
      long sent = System.nanoTime();
      HttpResponse<String> r = post(m.body());
      long answeredIn = System.nanoTime() - sent;
      if (answeredIn > slowest) {
        slowest = answeredIn;
        slowestKind = "#" + i + " " + m.kind() + " (" + m.body().length + " bytes, answered " + r.statusCode() + ")";
      }
      statuses.merge(r.statusCode(), 1, Integer::sum);
      // What a hostile payload leaves in a decision (kept in the decision log, written in every log line and
      // answer about it) is bounded, whatever the payload carried.
      if (r.statusCode() == 200 && r.body().length() > 1024 + 2048 * new JsonObject(r.body()).getInteger("alerts")
          && oversized.size() < 5) {
        oversized.add("#" + i + " " + m.kind() + ": " + r.body().length() + " characters");
      }
      // The documented 503: not ready while the node watch is down, as when the API server ends a watch and the
      // informer renews it (every few minutes; a long run sees it); Alertmanager retries those.
      boolean notReady = r.statusCode() == 503 && r.body().startsWith("{\"error\":\"not ready: ");
      if (r.statusCode() != 200 && r.statusCode() != 400 && r.statusCode() != 413 && !notReady && unexpected.size() < 5) {
        unexpected.add("#" + i + " " + m.kind() + ": " + r.statusCode() + " " + r.body() + " for "
            + new String(m.body(), 0, Math.min(300, m.body().length), StandardCharsets.UTF_8));
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    long heapAfter = heapAfterGc();

    HttpResponse<String> normal = post(Alerts.json(Alerts.xid("gpu-node-19", "79")).getBytes(StandardCharsets.UTF_8));
    System.out.printf(Locale.ROOT, "fuzzed %,d payloads (seed %d) in %.1f s: mutations %s; answers %s; heap after GC %d -> %d MiB;"
        + " cpu-node-1 and gpu-node-excluded touched: %s%n", COUNT, SEED, seconds, kinds, statuses, heapBefore >> 20, heapAfter >> 20,
        !cpuVersion.equals(resourceVersion("cpu-node-1")) || !excludedVersion.equals(resourceVersion("gpu-node-excluded")));
    long rss = residentBytes();
    System.out.printf(Locale.ROOT, "fuzzed %,d payloads: slowest answer %.2f s, %s; target < 5 s%s; RSS %d MiB (service, mock API"
        + " server and fuzzer in one JVM%s)%n", COUNT, slowest / 1e9, slowestKind, DEPLOYED ? slowest < 5_000_000_000L ? " -> MET"
        : " -> NOT MET" : "", rss >> 20, DEPLOYED ? ", the image's JVM flags under the Deployment's " + (DEPLOYMENT_LIMIT >> 20)
        + " MiB limit; target under it -> " + (rss < DEPLOYMENT_LIMIT ? "MET" : "NOT MET") : ", the test JVM's flags");
    if (DEPLOYED) {
      assertThat(slowest).as("the slowest answer, ns").isLessThan(5_000_000_000L);
      assertThat(rss).as("resident memory, bytes").isLessThan(DEPLOYMENT_LIMIT);
    }
    assertThat(unexpected).as("answers other than 200, 400, 413 and 503 not ready").isEmpty();
    assertThat(resourceVersion("cpu-node-1")).as("a node without GPUs is never a target").isEqualTo(cpuVersion);
    assertThat(resourceVersion("gpu-node-excluded")).as("an excluded node is never a target").isEqualTo(excludedVersion);
    assertThat(status("/healthz")).isEqualTo(200);
    assertThat(normal.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(normal.body()).getInteger("alerts")).isEqualTo(1);
    assertThat(heapAfter - heapBefore).as("heap growth after a full GC, bytes").isLessThan(128L << 20);
    assertThat(oversized).as("answers larger than 2 KiB a decision").isEmpty();
  }

  /** A payload and what was done to it. */
  private record Mutation(String kind, byte[] body) {
    Mutation(String kind, String body) {
      this(kind, body.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static Mutation mutate(Random r) {
    JsonObject valid = new JsonObject(Alerts.json(alerts(r, 1 + r.nextInt(5))));
    return switch (r.nextInt(10)) {
      case 0 -> new Mutation("valid", valid.encode());
      case 1 -> new Mutation("wrong-type", wrongType(valid, r).encode());
      case 2 -> new Mutation("huge-string", withString(valid, r, "x".repeat(r.nextBoolean() ? 200_000 : BODY_LIMIT)).encode());
      case 3 -> new Mutation("odd-characters", withString(valid, r, oddString(r)).encode());
      case 4 -> new Mutation("deep-nesting", deepNesting(valid, r));
      case 5 -> {
        String body = valid.encode();
        yield new Mutation("truncated", body.substring(0, 1 + r.nextInt(body.length() - 1))); // never empty: no body, no Content-Type
      }
      case 6 -> new Mutation("corrupted", corrupted(valid.encode(), r));
      case 7 -> new Mutation("1000-alerts", r.nextInt(4) == 0 ? Alerts.json(alerts(r, 1000)) : valid.encode());
      case 8 -> new Mutation("hostile-node", hostileNode(valid, r).encode());
      default -> new Mutation("duplicate-keys", valid.encode().replaceFirst("\"status\":\"(\\w+)\"", "\"status\":\"$1\",\"status\":7"));
    };
  }

  private static Alert[] alerts(Random r, int n) {
    Alert[] out = new Alert[n];
    for (int i = 0; i < n; i++) {
      String node = "gpu-node-" + r.nextInt(GPU_NODES + 2);   // now and then a node that does not exist
      Alert a = Alerts.xid(node, r.nextBoolean() ? "79" : "48");
      out[i] = r.nextInt(4) == 0 ? Alerts.resolved(a) : r.nextInt(8) == 0
          ? Alerts.alert(AlertStatus.FIRING, "GpuThermal", "th" + i, Map.of("node", node, "severity", "warning")) : a;
    }
    return out;
  }

  /** Every value path of the payload, as the containers that hold it and the key or index in each. */
  private static List<Object[]> paths(Object container, List<Object[]> out) {
    if (container instanceof JsonObject o) {
      for (String k : o.fieldNames()) {
        out.add(new Object[] {o, k});
        paths(o.getValue(k), out);
      }
    } else if (container instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        out.add(new Object[] {a, i});
        paths(a.getValue(i), out);
      }
    }
    return out;
  }

  private static Object randomValue(Random r) {
    return switch (r.nextInt(7)) {
      case 0 -> r.nextLong();
      case 1 -> r.nextDouble() * 1e300;
      case 2 -> r.nextBoolean();
      case 3 -> new JsonArray().add(1).add("a");
      case 4 -> new JsonObject().put("k", "v");
      case 5 -> "";
      default -> null;
    };
  }

  private static JsonObject wrongType(JsonObject payload, Random r) {
    List<Object[]> paths = paths(payload, new ArrayList<>());
    Object[] p = paths.get(r.nextInt(paths.size()));
    if (p[0] instanceof JsonObject o) {
      o.put((String) p[1], randomValue(r));
    } else {
      ((JsonArray) p[0]).set((Integer) p[1], randomValue(r));
    }
    return payload;
  }

  private static JsonObject withString(JsonObject payload, Random r, String value) {
    List<Object[]> strings = paths(payload, new ArrayList<>()).stream()
        .filter(p -> (p[0] instanceof JsonObject o ? o.getValue((String) p[1]) : ((JsonArray) p[0]).getValue((Integer) p[1]))
            instanceof String).toList();
    Object[] p = strings.get(r.nextInt(strings.size()));
    if (p[0] instanceof JsonObject o) {
      o.put((String) p[1], r.nextBoolean() ? value : o.getString((String) p[1]) + value);
    } else {
      ((JsonArray) p[0]).set((Integer) p[1], value);
    }
    return payload;
  }

  private static String oddString(Random r) {
    StringBuilder b = new StringBuilder();
    for (int i = 0, n = 1 + r.nextInt(40); i < n; i++) {
      b.append(ODD_CHARS.charAt(r.nextInt(ODD_CHARS.length())));
    }
    return b.toString();
  }

  private static String deepNesting(JsonObject payload, Random r) {
    int depth = 500 + r.nextInt(r.nextBoolean() ? 2_000 : 200_000);
    String open = r.nextBoolean() ? "[" : "{\"a\":";
    String close = open.equals("[") ? "]" : "}";
    String nested = open.repeat(depth) + "1" + close.repeat(depth);
    return payload.encode().replaceFirst("\"labels\":\\{", "\"labels\":{\"deep\":" + Matcher.quoteReplacement(nested) + ",");
  }

  private static byte[] corrupted(String body, Random r) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    for (int i = 0, n = 1 + r.nextInt(8); i < n; i++) {
      bytes[r.nextInt(bytes.length)] = (byte) r.nextInt(256);
    }
    return bytes;
  }

  private static JsonObject hostileNode(JsonObject payload, Random r) {
    JsonArray alerts = payload.getJsonArray("alerts");
    alerts.getJsonObject(r.nextInt(alerts.size())).getJsonObject("labels").put("node", HOSTILE_NODES.get(r.nextInt(HOSTILE_NODES.size())));
    return payload;
  }

  /** This JVM's resident set, from /proc. */
  private static long residentBytes() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) << 10;
      }
    }
    throw new IllegalStateException("no VmRSS in /proc/self/status");
  }

  /** The Deployment's memory limit (deploy/base/deployment.yaml), in bytes. */
  private static long deploymentLimit() {
    try {
      Matcher m = Pattern.compile("limits: \\{memory: (\\d+)Mi\\}").matcher(Files.readString(Path.of("../deploy/base/deployment.yaml")));
      if (!m.find()) {
        throw new IllegalStateException("no memory limit in deploy/base/deployment.yaml");
      }
      return Long.parseLong(m.group(1)) << 20;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static String resourceVersion(String node) {
    Node n = client.nodes().withName(node).get();
    return n.getMetadata().getResourceVersion();
  }

  private static HttpResponse<String> post(byte[] body) throws Exception {
    return service.send("POST", "/api/v1/alerts", body, "application/json");
  }

  private static int status(String path) {
    return Http.status(service.port(), path);
  }
}
