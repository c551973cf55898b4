package io.gpuremediator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.LocalPrometheus;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code backtest} against a real Prometheus holding a week of {@code ALERTS} (promtool's backfill of a seeded
 * history: a hardware XID, an uncorrectable ECC, a storm on eight nodes, an alert for a node the cluster does not have
 * and one for an excluded node, an NVLink down), compared with replaying the same history's webhooks live, in
 * order, to the service in dry-run on a clock set to each webhook's time: both name the same nodes, per day, as
 * quarantined, drained or repaired, and the same refusals by the same limits.
 */
class BacktestCommandTest {
  private static final String TOKEN = "backtest-test-token-0123456789";
  private static final Duration STEP = Duration.ofMinutes(1);
  private static final Pattern LINE = Pattern.compile("^  (\\S+(?: \\S+)?)\\s+(\\d+): (.*)$");
  @TempDir Path dir;

  /** One stretch of an alert firing, sampled each minute. */
  private record Stretch(Map<String, String> labels, Instant start, Duration length) {}

  @Test
  void aSeededWeekNamesTheSameNodesAndRefusalsAsReplayingItsWebhooksLive() throws Exception {
    Instant end = Instant.ofEpochSecond(Instant.now().getEpochSecond() / 60 * 60);
    LocalDate first = LocalDate.ofInstant(end, ZoneOffset.UTC).minusDays(6);
    List<Stretch> history = new ArrayList<>();
    history.add(xid(day(first, 0), "gpu-node-1"));
    history.add(new Stretch(labels("GpuEccUncorrectable", "gpu-node-2", "gpu", "0"), day(first, 1), Duration.ofMinutes(30)));
    for (int i = 10; i < 18; i++) {
      history.add(xid(day(first, 2), "gpu-node-" + i));
    }
    history.add(xid(day(first, 3), "gpu-node-99"));
    history.add(xid(day(first, 3), "gpu-node-5"));
    history.add(new Stretch(labels("GpuNvlinkDown", "gpu-node-3", "gpu", "1"), day(first, 4), Duration.ofMinutes(15)));

    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Node n = Nodes.gpu("gpu-node-" + i, "10.0.0." + (i + 1));
      if (i == 5) {
        n.getMetadata().getLabels().put("gpu-remediator.io/exclude", "true");
      }
      nodes.add(n);
    }
    Path nodesFile = dir.resolve("nodes.yaml");
    Files.writeString(nodesFile, Serialization.asYaml(new KubernetesListBuilder().withItems(new ArrayList<>(nodes)).build()));
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir, "dry_run: true\n"
        + "safety: {max_unavailable: 50%, rate_limit: 10/1h, breaker: {nodes: 5, window: 10m, auto_reset_after: 1h}}\n");

    String printed;
    try (LocalPrometheus prometheus = LocalPrometheus.backfilled(dir.resolve("prometheus"), openMetrics(history))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = Main.run("backtest", List.of("--config", config.toString(), "--prometheus", prometheus.url().toString(),
          "--since", "8d", "--nodes", nodesFile.toString()), new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8));
      printed = out.toString(StandardCharsets.UTF_8);
      assertThat(code).as("exit code; stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    }
    Map<LocalDate, Map<String, Set<String>>> backtest = parse(printed);

    Map<LocalDate, Map<String, Set<String>>> live = replayLive(config, nodes, webhooks(history));
    assertThat(backtest).as("backtest:%n%s", printed).isEqualTo(live);
    assertThat(backtest.get(first)).containsEntry("quarantined", Set.of("gpu-node-1"))
        .containsEntry("repaired", Set.of("gpu-node-1"));
    assertThat(backtest.get(first.plusDays(2)).get("refused breaker_open")).as("the storm").hasSize(8);
    assertThat(printed).contains("storm: the breaker would have stopped 8 nodes, the first at " + day(first, 2));
    assertThat(backtest.get(first.plusDays(3)).keySet()).as("an unknown node and an excluded one")
        .noneMatch(c -> c.equals("quarantined"));
    assertThat(backtest.get(first.plusDays(4))).containsEntry("quarantined", Set.of("gpu-node-3"))
        .containsEntry("drained", Set.of("gpu-node-3"));
    assertThat(printed).contains(first.plusDays(5) + "  nothing would have been done");
  }

  @Test
  void withoutANodesFileTheClustersNodesAreReadAndNothingIsWritten() throws Exception {
    Instant start = Instant.ofEpochSecond(Instant.now().getEpochSecond() / 60 * 60).minus(Duration.ofDays(1));
    Tokens.write(dir, TOKEN);
    try (EmulatedApiServer server = EmulatedApiServer.start(); KubernetesClient client = server.client();
        LocalPrometheus prometheus = LocalPrometheus.backfilled(dir.resolve("prometheus"),
            openMetrics(List.of(xid(start, "gpu-node-1"))))) {
      for (int i = 0; i < 3; i++) {
        client.nodes().resource(Nodes.gpu("gpu-node-" + i, "10.0.0." + (i + 1))).create();
      }
      Files.writeString(dir.resolve("kubeconfig"), "apiVersion: v1\nkind: Config\ncurrent-context: emulated\n"
          + "clusters: [{name: emulated, cluster: {server: '" + client.getMasterUrl() + "', insecure-skip-tls-verify: true}}]\n"
          + "contexts: [{name: emulated, context: {cluster: emulated, user: u}}]\nusers: [{name: u, user: {token: t}}]\n");
      Path config = dir.resolve("remediator.yaml");
      Files.writeString(config, "auth: {webhook_token_file: token, operator_token_file: operator-token, ledger_key_file: ledger-key}\nkubernetes: {kubeconfig: kubeconfig}\nplaybooks: ["
          + Path.of("../deploy/playbooks").toAbsolutePath() + "]\nsafety: {max_unavailable: 1}\n");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = Main.run("backtest", List.of("--config", config.toString(), "--prometheus", prometheus.url().toString(),
          "--since", "2d"), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      String printed = out.toString(StandardCharsets.UTF_8);
      assertThat(code).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(printed).contains("against 3 nodes (3 selected) as the cluster has them now");
      assertThat(parse(printed).get(LocalDate.ofInstant(start, ZoneOffset.UTC))).containsEntry("quarantined", Set.of("gpu-node-1"));
      // Asked again until the emulated API server answers: right after the backtest's own client closed its watch, the
      // mock server has been seen not to answer a first request within the client's 20 s (2 of 5 full runs on a busy
      // 2-core machine); a node that was written would still read unschedulable.
      Node node = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
          .until(() -> client.nodes().withName("gpu-node-1").get(), n -> n != null);
      assertThat(node.getSpec().getUnschedulable()).as("a dry-run writes nothing").isNotEqualTo(Boolean.TRUE);
    }
  }

  @Test
  void aPrometheusThatCannotBeReadExitsOne() throws Exception {
    Tokens.write(dir, TOKEN);
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "auth: {webhook_token_file: token, operator_token_file: operator-token, ledger_key_file: ledger-key}\nplaybooks: [" + Path.of("../deploy/playbooks").toAbsolutePath()
        + "]\n");
    Path nodesFile = dir.resolve("nodes.yaml");
    Files.writeString(nodesFile, Serialization.asYaml(new KubernetesListBuilder().withItems(
        List.of(Nodes.gpu("gpu-node-0", "10.0.0.1"))).build()));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run("backtest", List.of("--config", config.toString(), "--prometheus", "http://127.0.0.1:1",
        "--nodes", nodesFile.toString()), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("remediator backtest: cannot read http://127.0.0.1:1/api/v1/query_range");
  }

  private static Instant day(LocalDate first, int days) {
    return first.plusDays(days).atStartOfDay(ZoneOffset.UTC).toInstant().plus(Duration.ofHours(2));
  }

  private static Map<String, String> labels(String alertname, String node, String key, String value) {
    Map<String, String> l = new TreeMap<>(Map.of("alertname", alertname, "node", node, "severity", "critical",
        "remediate", "true"));
    l.put(key, value);
    return l;
  }

  private static Stretch xid(Instant start, String node) {
    Map<String, String> l = labels("GpuXidHardwareError", node, "xid", "79");
    l.put("gpu", "3");
    l.put("recommended_action", "reboot");
    return new Stretch(l, start, Duration.ofMinutes(10));
  }

  private static String openMetrics(List<Stretch> history) {
    StringBuilder b = new StringBuilder("# TYPE ALERTS gauge\n");
    for (Stretch s : history) {
      StringBuilder series = new StringBuilder("ALERTS{alertstate=\"firing\"");
      s.labels().forEach((k, v) -> series.append(',').append(k).append("=\"").append(v).append('"'));
      series.append('}');
      for (Instant t = s.start(); t.isBefore(s.start().plus(s.length())); t = t.plus(STEP)) {
        b.append(series).append(" 1 ").append(t.getEpochSecond()).append('\n');
      }
    }
    return b.append("# EOF\n").toString();
  }

  /** Alertmanager's webhooks for the history: each alert firing at its first sample, resolved a step after its last. */
  private static Map<Instant, List<Alert>> webhooks(List<Stretch> history) {
    Map<Instant, List<Alert>> out = new TreeMap<>();
    for (Stretch s : history) {
      String fingerprint = Integer.toHexString(s.labels().hashCode());
      out.computeIfAbsent(s.start(), t -> new ArrayList<>()).add(new Alert(AlertStatus.FIRING, s.labels(), Map.of(), s.start(),
          Optional.empty(), "", fingerprint));
      Instant ends = s.start().plus(s.length());
      out.computeIfAbsent(ends, t -> new ArrayList<>()).add(new Alert(AlertStatus.RESOLVED, s.labels(), Map.of(), s.start(),
          Optional.of(ends), "", fingerprint));
    }
    return out;
  }

  /** The webhooks posted in order to the service in dry-run, its clock at each one's time; its decisions sorted as the report sorts them. */
  private static Map<LocalDate, Map<String, Set<String>>> replayLive(Path config, List<Node> nodes,
      Map<Instant, List<Alert>> webhooks) throws Exception {
    Map<LocalDate, Map<String, Set<String>>> out = new TreeMap<>();
    MutableClock clock = new MutableClock(webhooks.keySet().iterator().next());
    try (EmulatedApiServer server = EmulatedApiServer.start(); KubernetesClient client = server.client()) {
      nodes.forEach(n -> client.nodes().resource(n).create());
      try (RunningService service = RunningService.ready(config, KubeApi.of(client), clock, Optional.of(TOKEN))) {
        for (Map.Entry<Instant, List<Alert>> w : webhooks.entrySet()) {
          clock.advance(Duration.between(clock.instant(), w.getKey()));
          assertThat(service.alerts(w.getValue().toArray(Alert[]::new)).statusCode()).isEqualTo(200);
        }
        JsonArray decisions = new JsonObject(service.get("/api/v1/decisions?limit=1000").body()).getJsonArray("decisions");
        for (Object o : decisions) {
          JsonObject d = (JsonObject) o;
          if (d.getString("status").equals("firing")) {
            sort(out, LocalDate.ofInstant(Instant.parse(d.getString("time")), ZoneOffset.UTC), d);
          }
        }
      }
    }
    return out;
  }

  private static void sort(Map<LocalDate, Map<String, Set<String>>> out, LocalDate day, JsonObject d) {
    Map<String, Set<String>> found = out.computeIfAbsent(day, k -> new TreeMap<>());
    String node = d.getString("node").isEmpty() ? "(no node)" : d.getString("node");
    JsonObject refused = d.getJsonObject("would_be_refused");
    if (d.getString("outcome").equals("dry_run") && refused == null) {
      found.computeIfAbsent("quarantined", k -> new TreeSet<>()).add(node);
      for (Object a : d.getJsonArray("actions")) {
        String type = ((JsonObject) a).getString("type");
        String category = Map.of("drain", "drained", "gpu_reset", "repaired", "reboot", "repaired", "replace", "replaced")
            .get(type);
        if (category != null) {
          found.computeIfAbsent(category, k -> new TreeSet<>()).add(node);
        }
      }
    } else if (d.getString("outcome").equals("dry_run") || d.getString("outcome").equals("suppressed")) {
      String reason = refused != null ? refused.getString("reason") : d.getString("reason");
      found.computeIfAbsent("refused " + reason, k -> new TreeSet<>()).add(node);
    } else {
      found.computeIfAbsent(d.getString("outcome") + " " + d.getString("reason"), k -> new TreeSet<>()).add(node);
    }
  }

  /** The report's day headers and category lines. */
  private static Map<LocalDate, Map<String, Set<String>>> parse(String printed) {
    Map<LocalDate, Map<String, Set<String>>> out = new TreeMap<>();
    LocalDate day = null;
    for (String line : printed.split("\n")) {
      if (line.matches("\\d{4}-\\d{2}-\\d{2}")) {
        day = LocalDate.parse(line);
        continue;
      }
      Matcher m = LINE.matcher(line);
      if (day != null && m.matches()) {
        Set<String> nodes = new TreeSet<>(List.of(m.group(3).split(", ")));
        assertThat(nodes).as(line).hasSize(Integer.parseInt(m.group(2)));
        out.computeIfAbsent(day, k -> new TreeMap<>()).put(m.group(1), nodes);
      }
    }
    return out;
  }
}
