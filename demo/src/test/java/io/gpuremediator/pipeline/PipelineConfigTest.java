package io.gpuremediator.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.simcluster.SimNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/** The demo's Prometheus and Alertmanager configs are the project's own, accepted by promtool and amtool. */
class PipelineConfigTest {
  private static final Path SCRAPE = Path.of("../dcgm/prometheus.yml");
  private static final Path ROUTES = Path.of("../alerts/alertmanager.yml");
  private static final List<SimNode> NODES = List.of(new SimNode("gpu-node-0", SimNode.Kind.GPU, "10.0.0.1"),
      new SimNode("trn-node-0", SimNode.Kind.TRAINIUM, "10.1.0.1"));
  @TempDir Path dir;

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + out).isZero();
    return out;
  }

  @Test
  void theScrapeConfigKeepsEveryJobAndRelabelAndStandsInForDiscoveryWithTheSameMetaLabels() throws Exception {
    String rendered = ScrapeConfig.render(SCRAPE, DiscoveredPod.of(NODES, 9000, 9001), Duration.ofSeconds(1), dir.resolve("rules"));
    Path file = dir.resolve("prometheus.yml");
    Files.writeString(file, rendered);
    run("promtool", "check", "config", file.toString());

    Map<String, Object> source = new Yaml().load(Files.readString(SCRAPE));
    Map<String, Object> demo = new Yaml().load(rendered);
    assertThat(rendered).doesNotContain("kubernetes_sd_configs").contains("__meta_kubernetes_pod_node_name: gpu-node-0",
        "__metrics_path__: /metrics/dcgm/gpu-node-0", "scrape_interval: 1s", "evaluation_interval: 1s");
    List<Map<String, Object>> sourceJobs = jobs(source);
    List<Map<String, Object>> demoJobs = jobs(demo);
    assertThat(demoJobs).hasSameSizeAs(sourceJobs);
    for (int i = 0; i < sourceJobs.size(); i++) {
      assertThat(demoJobs.get(i).get("relabel_configs")).isEqualTo(sourceJobs.get(i).get("relabel_configs"));
      assertThat(demoJobs.get(i).get("metric_relabel_configs")).isEqualTo(sourceJobs.get(i).get("metric_relabel_configs"));
      if ("gpu-remediator".equals(sourceJobs.get(i).get("job_name"))) {
        assertThat(sourceJobs.get(i)).as("in a cluster: TLS").containsEntry("scheme", "https").containsKey("tls_config");
        assertThat(demoJobs.get(i)).as("the demo's service: plain HTTP").doesNotContainKeys("scheme", "tls_config");
      }
    }
    assertThat(demo.get("rule_files")).isEqualTo(List.of(dir.resolve("rules/0/*.rules.yml").toString()));
    // The copies, their group intervals in milliseconds, load as Prometheus loads them.
    List<String> check = new ArrayList<>(List.of("promtool", "check", "rules"));
    try (var copies = Files.newDirectoryStream(dir.resolve("rules/0"), "*.rules.yml")) {
      copies.forEach(f -> check.add(f.toString()));
    }
    assertThat(check).hasSizeGreaterThan(10);
    run(check.toArray(String[]::new));
  }

  @Test
  @SuppressWarnings("unchecked")
  void eachRuleGroupRunsAsOftenRelativeToTheGlobalIntervalAsInProduction() throws Exception {
    ScrapeConfig.render(SCRAPE, DiscoveredPod.of(NODES, 9000, 9001), Duration.ofSeconds(1), dir.resolve("rules"));
    // dcgm/prometheus.yml evaluates every 15 s: the demo's 1 s is a fifteenth of it.
    Map<String, Integer> intervals = new TreeMap<>();
    for (String file : List.of("gpu-presence.rules.yml", "gpu-xid.rules.yml", "infiniband.rules.yml")) {
      Map<String, Object> rules = new Yaml().load(Files.readString(dir.resolve("rules/0").resolve(file)));
      for (Map<String, Object> g : (List<Map<String, Object>>) rules.get("groups")) {
        Map<String, Object> source = ((List<Map<String, Object>>) ((Map<String, Object>) new Yaml().load(
            Files.readString(Path.of("../rules").resolve(file)))).get("groups")).stream()
            .filter(o -> o.get("name").equals(g.get("name"))).findFirst().orElseThrow();
        assertThat(g.get("rules")).isEqualTo(source.get("rules"));
        intervals.put((String) g.get("name"), g.containsKey("interval")
            ? Integer.valueOf(((String) g.get("interval")).replace("ms", "")) : null);
      }
    }
    assertThat(intervals).containsEntry("gpu-xid", null).containsEntry("gpu-presence", 4000)
        .containsEntry("gpu-presence-telemetry", 20000).containsEntry("infiniband-recent", 20000)
        .containsEntry("gpu-presence-hourly", 240000);
  }

  @Test
  void aGroupIntervalTheDemoCannotScaleIsRefusedWithItsLine() {
    Path file = dir.resolve("odd.rules.yml");
    assertThatThrownBy(() -> RuleIntervals.scaled(file, "groups:\n  - name: x\n    interval: 1m30s\n", Duration.ofSeconds(15),
        Duration.ofSeconds(1))).hasMessage(file + ":3: a group interval the demo cannot scale: '1m30s' (a number of s, m or h)");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> jobs(Map<String, Object> config) {
    return (List<Map<String, Object>>) config.get("scrape_configs");
  }

  @Test
  void discoveryTheDemoCannotStandInForIsRefused() throws Exception {
    Path file = dir.resolve("consul.yml");
    Files.writeString(file, "scrape_configs:\n  - job_name: x\n    consul_sd_configs: [{server: 'consul:8500'}]\n");
    assertThatThrownBy(() -> ScrapeConfig.render(file, DiscoveredPod.of(NODES, 1, 2), Duration.ofSeconds(1), dir.resolve("rules")))
        .hasMessage(file + ": the demo cannot stand in for consul_sd_configs");
  }

  @Test
  void theAlertmanagerConfigChangesOnlyTheRemediatorAddressTokenFileAndTimers() throws Exception {
    Path token = dir.resolve("token");
    String rendered = RouteConfig.render(ROUTES, "http://127.0.0.1:9999/api/v1/alerts", token, Duration.ofSeconds(1), Duration.ofSeconds(1));
    Path file = dir.resolve("alertmanager.yml");
    Files.writeString(file, rendered);
    run("amtool", "check-config", file.toString());
    run("amtool", "config", "routes", "test", "--config.file=" + file, "--verify.receivers=gpu-remediator",
        "alertname=GpuXidHardwareError", "remediate=true", "node=gpu-node-0");
    run("amtool", "config", "routes", "test", "--config.file=" + file, "--verify.receivers=gpu-oncall",
        "alertname=GpuXidApplicationError", "severity=info", "node=gpu-node-0");

    Map<String, Object> source = new Yaml().load(Files.readString(ROUTES));
    Map<String, Object> demo = new Yaml().load(rendered);
    assertThat(demo.get("inhibit_rules")).isEqualTo(source.get("inhibit_rules"));
    assertThat(rendered).contains("url: http://127.0.0.1:9999/api/v1/alerts", "credentials_file: " + token.toAbsolutePath(),
        "group_wait: 1s", "group_interval: 1s").doesNotContain("svc:8080", "30s", "10s");
  }

  @Test
  void withoutTheRemediatorReceiverTheAlertmanagerConfigIsRefused() throws Exception {
    Path file = dir.resolve("am.yml");
    Files.writeString(file, "route: {receiver: people}\nreceivers: [{name: people}]\n");
    assertThatThrownBy(() -> RouteConfig.render(file, "http://x", dir.resolve("t"), Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage(file + ": no receiver gpu-remediator with a webhook_configs entry");
  }
}
