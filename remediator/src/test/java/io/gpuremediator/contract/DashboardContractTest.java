package io.gpuremediator.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard in deploy/grafana/, checked offline: valid JSON with a stable uid and one Prometheus
 * datasource variable named {@code datasource} that every panel uses; rates over {@code $__rate_interval};
 * every query parses (each wrapped as a recording rule for {@code promtool check rules}); and every metric a
 * panel reads is one the service exports (read from a live {@code /metrics}) or the rules record.
 */
class DashboardContractTest {
  private static final Path DASHBOARD = Path.of("../deploy/grafana/gpu-remediator.json");
  private static final Pattern RATE_RANGE = Pattern.compile("\\brate\\([^\\[]*\\[([^\\]]+)\\]");
  private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
      "bool", "and", "or", "unless", "offset");
  @TempDir static Path dir;
  private static JsonObject dashboard;
  private static final List<Target> TARGETS = new ArrayList<>();

  private record Target(String panel, String ref, String expr) {}

  @BeforeAll
  static void read() throws Exception {
    dashboard = new JsonObject(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
    for (Object p : dashboard.getJsonArray("panels")) {
      JsonObject panel = (JsonObject) p;
      for (Object t : panel.getJsonArray("targets", new JsonArray())) {
        JsonObject target = (JsonObject) t;
        TARGETS.add(new Target(panel.getString("title"), target.getString("refId"), target.getString("expr")));
      }
    }
  }

  @Test
  void theDashboardHasAStableUidAndOneDatasourceVariableEveryPanelUses() {
    assertThat(dashboard.getString("uid")).isEqualTo("gpu-remediator");
    JsonArray variables = dashboard.getJsonObject("templating").getJsonArray("list");
    assertThat(variables).hasSize(1);
    JsonObject ds = variables.getJsonObject(0);
    assertThat(ds.getString("name")).isEqualTo("datasource");
    assertThat(ds.getString("type")).isEqualTo("datasource");
    assertThat(ds.getString("query")).isEqualTo("prometheus");
    assertThat(TARGETS).hasSizeGreaterThan(10);
    for (Object p : dashboard.getJsonArray("panels")) {
      JsonObject panel = (JsonObject) p;
      if (panel.getString("type").equals("row")) {
        continue;
      }
      assertThat(panel.getJsonObject("datasource").getString("uid")).as(panel.getString("title")).isEqualTo("${datasource}");
      for (Object t : panel.getJsonArray("targets")) {
        assertThat(((JsonObject) t).getJsonObject("datasource").getString("uid")).isEqualTo("${datasource}");
      }
    }
  }

  @Test
  void everyRateIsOverTheRateInterval() {
    for (Target t : TARGETS) {
      Matcher m = RATE_RANGE.matcher(t.expr());
      while (m.find()) {
        assertThat(m.group(1)).as(t.panel() + " " + t.ref() + ": " + t.expr()).isEqualTo("$__rate_interval");
      }
    }
  }

  @Test
  void everyQueryParsesAsPromtoolSeesIt() throws Exception {
    JsonArray rules = new JsonArray();
    int i = 0;
    for (Target t : TARGETS) {
      rules.add(new JsonObject().put("record", "dashboard:query_" + i++ + ":check")
          .put("expr", t.expr().replace("$__rate_interval", "5m")));
    }
    Path file = dir.resolve("dashboard.rules.yml"); // JSON is YAML
    Files.writeString(file, new JsonObject().put("groups", new JsonArray().add(new JsonObject()
        .put("name", "dashboard").put("rules", rules))).encodePrettily());
    Process promtool = new ProcessBuilder("promtool", "check", "rules", file.toString()).redirectErrorStream(true).start();
    String out = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(promtool.exitValue()).as(out).isZero();
    assertThat(out).contains("SUCCESS: " + TARGETS.size() + " rules found");
  }

  @Test
  void everyMetricAPanelReadsIsExportedByTheServiceOrRecordedByTheRules() throws Exception {
    Set<String> known = new TreeSet<>(liveMetricNames());
    known.addAll(RuleFiles.read(Path.of("../rules"), Path.of("../rules/opt-in")).records().keySet());
    known.add("ALERTS");
    assertThat(known).contains("remediator_decisions_total", "remediator_step_duration_seconds_bucket",
        "remediator_alert_to_action_seconds_bucket", "gpu:dcgm_xid_errors:max");
    for (Target t : TARGETS) {
      assertThat(metricsIn(t.expr())).as(t.panel() + " " + t.ref() + ": " + t.expr()).isNotEmpty().isSubsetOf(known);
    }
  }

  @Test
  void theMetricNamesOfAQueryAreFoundAndNothingElse() {
    assertThat(metricsIn("histogram_quantile(0.9, sum by (le, kind) (rate(a_bucket{kind=~\"x|y\"}[$__rate_interval])))"
        + " / on (kind) group_left b_total offset 5m and count(ALERTS{alertname=\"c\"})"))
        .containsExactly("ALERTS", "a_bucket", "b_total");
  }

  @Test
  @SuppressWarnings("unchecked")
  void remediationAlertsCarryTheLabelThePanelSelects() throws Exception {
    assertThat(RuleFiles.read(Path.of("../rules")).alerts().values())
        .anyMatch(rule -> "true".equals(((Map<String, String>) rule.get("labels")).get("remediate")));
  }

  /** The metric names of a query: identifiers outside label matchers, ranges, strings and by/without lists, not called. */
  static Set<String> metricsIn(String expr) {
    String bare = expr.replaceAll("\"[^\"]*\"", "\"\"").replaceAll("\\{[^}]*\\}", " ").replaceAll("\\[[^\\]]*\\]", " ")
        .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
        .replaceAll("\\b\\d+(\\.\\d+)?[a-z]*", " "); // numbers and durations (0.99, 5m)
    Set<String> names = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(bare);
    while (m.find()) {
      String name = m.group();
      int next = m.end();
      while (next < bare.length() && bare.charAt(next) == ' ') {
        next++;
      }
      boolean called = next < bare.length() && bare.charAt(next) == '(';
      if (!called && !KEYWORDS.contains(name)) {
        names.add(name);
      }
    }
    return names;
  }

  /** Every sample name /metrics of a running service can show, from its TYPE lines. */
  private static Set<String> liveMetricNames() throws Exception {
    Set<String> names = new TreeSet<>();
    try (EmulatedApiServer server = EmulatedApiServer.start(); KubernetesClient client = server.client()) {
      Nodes.createFleet(client, 2);
      Tokens.write(dir, "dashboard-test-token-0123456789");
      Path config = dir.resolve("remediator.yaml");
      Files.writeString(config, ServiceConfig.shipped());
      try (RunningService service = RunningService.ready(config, KubeApi.of(server.client()), Alerts.liveClock(),
          Optional.of("dashboard-test-token-0123456789"))) {
        for (String line : Http.get(service.port(), "/metrics").body().split("\n")) {
          String[] f = line.split(" ");
          if (line.startsWith("# TYPE ") && f.length == 4) {
            switch (f[3]) {
              case "counter" -> names.addAll(List.of(f[2], f[2].endsWith("_total") ? f[2] : f[2] + "_total"));
              case "histogram" -> names.addAll(List.of(f[2] + "_bucket", f[2] + "_sum", f[2] + "_count"));
              default -> names.add(f[2]);
            }
          } else if (!line.startsWith("#") && !line.isBlank()) {
            names.add(line.split("[{ ]", 2)[0]);
          }
        }
      }
    }
    return names;
  }
}
