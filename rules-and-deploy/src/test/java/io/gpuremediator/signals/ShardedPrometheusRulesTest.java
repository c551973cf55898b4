package io.gpuremediator.signals;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuremediator.pipeline.DiscoveredPod;
import io.gpuremediator.pipeline.Http;
import io.gpuremediator.pipeline.Poll;
import io.gpuremediator.pipeline.Ports;
import io.gpuremediator.pipeline.Processes;
import io.gpuremediator.pipeline.ScrapeConfig;
import io.gpuremediator.pipeline.Simulator;
import io.gpuremediator.simcluster.SimNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The shipped scrape config and rules on one Prometheus and split by node across two ({@link Shards}), all three
 * scraping the same simulated fleet with faults on several nodes: the union of the two shards' alerts is the one
 * Prometheus's, and each alert about a node comes from the shard that owns the node. The groups run every 5 s here
 * ({@link #withFastGroups}); what a shard owns does not depend on it.
 */
class ShardedPrometheusRulesTest {
  private static final Path DCGM = Path.of("../dcgm").toAbsolutePath().normalize();
  private static final Path SIMULATOR = DCGM.resolve("simulator/target/dcgm-simulator.jar");
  private static final int SHARDS = 2;
  private static final Pattern FAST_GROUP = Pattern.compile("(?m)^(\\s+)interval: \\S+$");
  @TempDir Path dir;

  @Test
  void twoPrometheusShardedByNodeFireTogetherWhatOnePrometheusFires() throws Exception {
    Http http = new Http();
    try (Processes processes = new Processes(dir.resolve("pids"), dir)) {
      Path portFile = dir.resolve("simulator.port");
      processes.start("dcgm-simulator", List.of("java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-jar", SIMULATOR.toString(), "--csv",
          DCGM.resolve("counters.csv").toString(), "--gpu-nodes", "8", "--trn-nodes", "2", "--listen", "127.0.0.1:0", "--port-file", portFile.toString(),
          "--no-node-label"), dir.resolve("simulator.log"));
      int simulatorPort = Poll.until("the simulator's port file", Duration.ofSeconds(60), Duration.ofMillis(100),
          () -> Files.exists(portFile) && !Files.readString(portFile).isBlank()
              ? Optional.of(Integer.parseInt(Files.readString(portFile).trim())) : Optional.empty());
      Simulator simulator = new Simulator(http, simulatorPort);
      List<SimNode> nodes = SimNode.listFrom(http.get("http://127.0.0.1:" + simulatorPort + "/nodes", null));
      // Faults a rule sees at once.
      simulator.inject("gpu-node-1", 2, "xid", "79");
      simulator.inject("gpu-node-2", 0, "row_remap_failure", null);
      simulator.inject("gpu-node-6", 1, "overheat", null);
      simulator.inject("trn-node-1", null, "neuron_error", "HBM_UNCORRECTABLE_ERROR");

      String whole = withFastGroups(ScrapeConfig.render(DCGM.resolve("prometheus.yml"), DiscoveredPod.of(nodes, simulatorPort,
          Ports.free()), Duration.ofSeconds(1), dir.resolve("scaled-rules")));
      List<String> urls = new ArrayList<>();
      urls.add(prometheus(processes, "whole", Shards.of(whole, 0, 1)));
      for (int s = 0; s < SHARDS; s++) {
        urls.add(prometheus(processes, "shard-" + s, Shards.of(whole, s, SHARDS)));
      }

      // Faults that are faults only against what was (a counter's increase, a link or GPU count seen before, the proof
      // that a GPU has NVLink): once every server has scraped every target, and then evaluated each group run at least
      // once a minute over the healthy fleet. A group's first run may come before the first scrape and record nothing;
      // the next is a minute later.
      for (String url : urls) {
        Instant scraped = Poll.until(url + " scraping every target once (the remediator's is down: no remediator runs here)", Duration.ofSeconds(60), Duration.ofMillis(250), () -> {
          Instant last = Instant.EPOCH;
          JsonNode targets = http.get(url + "/api/v1/targets?state=active", null).path("data").path("activeTargets");
          for (JsonNode t : targets) {
            String at = t.path("lastScrape").asText();
            if (at.startsWith("0001")) {
              throw new IllegalStateException(t.path("scrapeUrl").asText() + " not yet scraped");
            }
            Instant when = OffsetDateTime.parse(at).toInstant();
            last = when.isAfter(last) ? when : last;
          }
          return targets.isEmpty() ? Optional.empty() : Optional.of(last);
        });
        Poll.until(url + " evaluating every group of at most a minute's interval after " + scraped, Duration.ofSeconds(120),
            Duration.ofMillis(500), () -> {
              for (JsonNode g : http.get(url + "/api/v1/rules", null).path("data").path("groups")) {
                String last = g.path("lastEvaluation").asText();
                if (g.path("interval").asDouble() <= 60
                    && (last.startsWith("0001") || !OffsetDateTime.parse(last).toInstant().isAfter(scraped))) {
                  throw new IllegalStateException(g.path("name").asText() + " last evaluated " + last);
                }
              }
              return Optional.of(true);
            });
      }
      simulator.inject("gpu-node-3", null, "ib_down", "mlx5_1");
      simulator.inject("gpu-node-4", 5, "nvlink_down", null);
      simulator.inject("gpu-node-5", 7, "gpu_lost", null);

      // The faults' alerts (pending or firing: the states follow each server's clock, the alerts do not).
      Set<String> expected = Set.of("GpuXidHardwareError gpu-node-1", "GpuRowRemapFailure gpu-node-2", "GpuThermal gpu-node-6", "InfinibandLinkDown gpu-node-3",
          "GpuNvlinkDown gpu-node-4", "GpuCountDropped gpu-node-5", "NeuronHardwareError trn-node-1");
      List<Set<Map<String, String>>> seen = Poll.until("the faults' alerts on the whole Prometheus, and the shards' union equal to its",
          Duration.ofSeconds(120), Duration.ofMillis(500), () -> {
            List<Set<Map<String, String>>> alerts = new ArrayList<>();
            for (String url : urls) {
              alerts.add(alerts(http, url));
            }
            Set<String> named = new TreeSet<>();
            alerts.get(0).forEach(a -> named.add(a.get("alertname") + " " + a.get("node")));
            Set<Map<String, String>> union = new TreeSet<>(Shards::compare);
            alerts.subList(1, alerts.size()).forEach(union::addAll);
            if (!named.containsAll(expected) || !union.equals(alerts.get(0))) {
              throw new IllegalStateException("whole: " + alerts.get(0) + "; shards: " + alerts.subList(1, alerts.size()));
            }
            return Optional.of(alerts);
          });
      Set<String> owners = new TreeSet<>();
      for (int s = 0; s < SHARDS; s++) {
        for (Map<String, String> alert : seen.get(s + 1)) {
          String node = alert.get("node");
          if (node == null) {
            assertThat(s).as("%s has no node: only the shard scraping the remediator evaluates it", alert).isZero();
          } else {
            assertThat(Shards.owner(node, SHARDS)).as("the shard owning %s fired %s", node, alert).isEqualTo(s);
            owners.add("shard-" + s);
          }
        }
      }
      assertThat(owners).as("the faulted nodes fall on both shards").hasSize(SHARDS);
    }
  }

  /**
   * The config with its rule files copied and every group's own interval (the once-a-minute groups') set to 5 s: the
   * shards own the same nodes at any interval, and the test waits seconds where it would wait minutes.
   */
  @SuppressWarnings("unchecked")
  private String withFastGroups(String yaml) throws Exception {
    Map<String, Object> config = new Yaml().load(yaml);
    Path rules = Files.createDirectories(dir.resolve("rules"));
    for (Object glob : (List<Object>) config.get("rule_files")) {
      Path pattern = Path.of(glob.toString());
      try (var files = Files.newDirectoryStream(pattern.getParent(), pattern.getFileName().toString())) {
        for (Path f : files) {
          Files.writeString(rules.resolve(f.getFileName()), FAST_GROUP.matcher(Files.readString(f)).replaceAll("$1interval: 5s"));
        }
      }
    }
    config.put("rule_files", List.of(rules.resolve("*.yml").toString()));
    return new Yaml().dump(config);
  }

  private String prometheus(Processes processes, String name, String config) throws Exception {
    int port = Ports.free();
    Path file = dir.resolve(name + ".yml");
    Files.writeString(file, config);
    processes.start(name, List.of("prometheus", "--config.file=" + file, "--storage.tsdb.path=" + dir.resolve(name),
        "--web.listen-address=127.0.0.1:" + port), dir.resolve(name + ".log"));
    return "http://127.0.0.1:" + port;
  }

  /** The server's alerts, pending or firing, each as its labels without the state. */
  private static Set<Map<String, String>> alerts(Http http, String url) throws Exception {
    Set<Map<String, String>> out = new TreeSet<>(Shards::compare);
    JsonNode result = http.get(url + "/api/v1/query?query=" + URLEncoder.encode("ALERTS", StandardCharsets.UTF_8), null)
        .path("data").path("result");
    for (JsonNode r : result) {
      Map<String, String> labels = new TreeMap<>();
      r.path("metric").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
      labels.remove("__name__");
      labels.remove("alertstate");
      out.add(labels);
    }
    return out;
  }
}
