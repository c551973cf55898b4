package io.gpuremediator.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The project's scrape configs against the GPU Operator as it really installs dcgm-exporter: the pod labels, container
 * port, Service and its port name come from the GPU Operator's own manifests, and the exporter serves a {@code /metrics}
 * capture recorded on a real cluster (tests/real/, sources in tests/real/SOURCES.md).
 */
class RealInstallScrapeTest {
  private static final Path REAL = Path.of("../tests/real");
  private static final Path CAPTURE = REAL.resolve("dcgm-exporter/3.3.5-3.4.1-mig-a30-xid.prom");
  @TempDir Path dir;

  @SuppressWarnings("unchecked")
  private static Map<String, Object> yaml(Path file, int document) throws Exception {
    List<Object> docs = new ArrayList<>();
    new Yaml().loadAll(Files.readString(file)).forEach(docs::add);
    return (Map<String, Object>) docs.get(document);
  }

  @SuppressWarnings("unchecked")
  private static <T> T at(Map<String, Object> map, String... path) {
    Object o = map;
    for (String key : path) {
      o = o instanceof List<?> list ? list.get(Integer.parseInt(key)) : ((Map<String, Object>) o).get(key);
    }
    return (T) o;
  }

  @Test
  void aRealPrometheusScrapesTheGpuOperatorsExporterAndTheChartsWithTheNodeOfEachPod() throws Exception {
    Map<String, Object> daemonSet = yaml(REAL.resolve("gpu-operator/0800_daemonset.yaml"), 0);
    Map<String, String> operatorPod = at(daemonSet, "spec", "template", "metadata", "labels");
    int operatorPort = at(daemonSet, "spec", "template", "spec", "containers", "0", "ports", "0", "containerPort");

    byte[] capture = Files.readAllBytes(CAPTURE);
    HttpServer exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    exporter.createContext("/metrics", x -> {
      x.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
      x.sendResponseHeaders(200, capture.length);
      x.getResponseBody().write(capture);
      x.close();
    });
    exporter.start();
    int prometheusPort = Ports.free();
    try (Processes processes = new Processes(dir.resolve("pids"), dir)) {
      String address = "127.0.0.1:" + exporter.getAddress().getPort();
      List<DiscoveredPod> pods = List.of(
          new DiscoveredPod("gpu-operator", "nvidia-dcgm-exporter-7xk2p", "operator-node", operatorPod, operatorPort, address, "/metrics"),
          new DiscoveredPod("monitoring", "dcgm-exporter-q8d4n", "chart-node", DiscoveredPod.CHART_DCGM_EXPORTER, 9400, address, "/metrics"),
          new DiscoveredPod("monitoring", "node-exporter-5tgfw", "other-node", Map.of("app", "node-exporter"), 9400, address, "/metrics"));
      Path config = dir.resolve("prometheus.yml");
      Files.writeString(config, ScrapeConfig.render(Path.of("../dcgm/prometheus.yml"), pods, Duration.ofSeconds(1)));
      processes.start("prometheus", List.of("prometheus", "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
          "--web.listen-address=127.0.0.1:" + prometheusPort), dir.resolve("prometheus.log"));

      String query = "count by (node, job) (DCGM_FI_DEV_XID_ERRORS)";
      String url = "http://127.0.0.1:" + prometheusPort + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8);
      Http http = new Http();
      Map<String, String> seen = Poll.until("both exporters' XID series in Prometheus, by node", Duration.ofSeconds(60),
          Duration.ofMillis(200), () -> {
            Map<String, String> byNode = new TreeMap<>();
            for (JsonNode r : http.get(url, null).path("data").path("result")) {
              byNode.put(r.path("metric").path("node").asText(), r.path("value").path(1).asText());
            }
            if (byNode.size() < 2) {
              throw new IllegalStateException("Prometheus has XID series for " + byNode + " (node=count)");
            }
            return Optional.of(byNode);
          });
      // Each exporter serves the capture's 6 XID series (one per MIG instance), named by the node its pod runs on;
      // the pod of another DaemonSet on the same port is not scraped as dcgm-exporter.
      assertThat(seen).containsExactlyInAnyOrderEntriesOf(Map.of("operator-node", "6", "chart-node", "6"));
    } finally {
      exporter.stop(0);
    }
  }

  @Test
  void theGpuOperatorsServiceMonitorSelectsTheGpuOperatorsServiceByItsLabelsAndPortName() throws Exception {
    Map<String, Object> service = yaml(REAL.resolve("gpu-operator/0600_service.yaml"), 0);
    Map<String, String> serviceLabels = at(service, "metadata", "labels");
    List<Map<String, Object>> ports = at(service, "spec", "ports");
    List<String> portNames = ports.stream().map(p -> (String) p.get("name")).toList();

    List<Map<String, Object>> selecting = new ArrayList<>();
    new Yaml().loadAll(Files.readString(Path.of("../dcgm/monitors.yaml"))).forEach(o -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> m = (Map<String, Object>) o;
      Map<String, String> match = at(m, "spec", "selector", "matchLabels");
      if ("ServiceMonitor".equals(m.get("kind")) && serviceLabels.entrySet().containsAll(match.entrySet())) {
        selecting.add(m);
      }
    });
    assertThat(selecting).as("ServiceMonitors of dcgm/monitors.yaml selecting the GPU Operator's Service").hasSize(1);
    Map<String, Object> monitor = selecting.get(0);
    String port = at(monitor, "spec", "endpoints", "0", "port");
    assertThat(portNames).contains(port);
    List<Object> relabelings = at(monitor, "spec", "endpoints", "0", "relabelings");
    assertThat(relabelings).asString().contains("__meta_kubernetes_pod_node_name");
  }
}
