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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
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

  /**
   * A manifest as YAML. The GPU Operator's manifests since v26 are Go templates: a line holding only a template action
   * is dropped, and an action inside a line reads as the word {@code templated}; the labels, selectors and ports the
   * tests read are literal text in them.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> yaml(Path file, int document) throws Exception {
    String text = Files.readString(file).replaceAll("(?m)^\\s*\\{\\{-?[^}]*}}\\s*$\\n?", "")
        .replaceAll("\\{\\{-?[^}]*}}", "templated");
    List<Object> docs = new ArrayList<>();
    new Yaml().loadAll(text).forEach(docs::add);
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
    Map<String, Object> v249 = yaml(REAL.resolve("gpu-operator/v24.9.2/0900_daemonset.yaml"), 0);
    Map<String, Object> dra = yaml(REAL.resolve("gpu-operator/v26.7.0-dra/0700_daemonset.yaml"), 0);
    Map<String, Object> neuron = yaml(REAL.resolve("aws/k8s-neuron-monitor-daemonset.yml"), 0);

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
          new DiscoveredPod("gpu-operator", "nvidia-dcgm-exporter-4hq9z", "operator-24-9-node",
              at(v249, "spec", "template", "metadata", "labels"),
              at(v249, "spec", "template", "spec", "containers", "0", "ports", "0", "containerPort"), address, "/metrics"),
          new DiscoveredPod("gpu-operator", "nvidia-dcgm-exporter-dra-m2x7c", "dra-node",
              at(dra, "spec", "template", "metadata", "labels"),
              at(dra, "spec", "template", "spec", "containers", "0", "ports", "0", "containerPort"), address, "/metrics"),
          new DiscoveredPod(at(neuron, "metadata", "namespace"), "neuron-monitor-8c2lq", "trn-node",
              at(neuron, "spec", "template", "metadata", "labels"),
              at(neuron, "spec", "template", "spec", "containers", "0", "ports", "0", "containerPort"), address, "/metrics"),
          new DiscoveredPod("monitoring", "node-exporter-5tgfw", "other-node", Map.of("app", "node-exporter"), 9400, address, "/metrics"));
      Path config = dir.resolve("prometheus.yml");
      Files.writeString(config, ScrapeConfig.render(Path.of("../dcgm/prometheus.yml"), pods, Duration.ofSeconds(1), dir.resolve("rules")));
      processes.start("prometheus", List.of("prometheus", "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
          "--web.listen-address=127.0.0.1:" + prometheusPort), dir.resolve("prometheus.log"));

      String query = "count by (node, job) (DCGM_FI_DEV_XID_ERRORS)";
      String url = "http://127.0.0.1:" + prometheusPort + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8);
      Http http = new Http();
      Map<String, String> seen = Poll.until("both exporters' XID series in Prometheus, by node", Duration.ofSeconds(60),
          Duration.ofMillis(200), () -> {
            Map<String, String> byNode = new TreeMap<>();
            for (JsonNode r : http.get(url, null).path("data").path("result")) {
              byNode.put(r.path("metric").path("node").asText() + "/" + r.path("metric").path("job").asText(),
                  r.path("value").path(1).asText());
            }
            if (byNode.size() < 5) {
              throw new IllegalStateException("Prometheus has XID series for " + byNode + " (node=count)");
            }
            return Optional.of(byNode);
          });
      // Each exporter serves the capture's 6 XID series (one per MIG instance), named by the node its pod runs on: the
      // chart's, the GPU Operator's (as its older manifests and v24.9.2 label it) and v26.7's GPUCluster (DRA) stack's;
      // the pod of another DaemonSet on the same port is not scraped as dcgm-exporter. neuron-monitor as AWS's reference
      // DaemonSet deploys it (here serving the same text) is scraped by its own job.
      assertThat(seen).containsExactlyInAnyOrderEntriesOf(Map.of("operator-node/dcgm-exporter", "6", "chart-node/dcgm-exporter", "6",
          "operator-24-9-node/dcgm-exporter", "6", "dra-node/dcgm-exporter", "6", "trn-node/neuron-monitor", "6"));
    } finally {
      exporter.stop(0);
    }
  }

  /** The Service of each GPU Operator release recorded: the older one, v24.9.2's, and v26.7's GPUCluster (DRA) stack's. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"gpu-operator/0600_service.yaml", "gpu-operator/v24.9.2/0600_service.yaml",
      "gpu-operator/v26.7.0-dra/0500_service.yaml"})
  void theGpuOperatorsServiceMonitorSelectsTheGpuOperatorsServiceByItsLabelsAndPortName(String file) throws Exception {
    Map<String, Object> service = yaml(REAL.resolve(file), 0);
    Map<String, String> serviceLabels = at(service, "metadata", "labels");
    List<Map<String, Object>> ports = at(service, "spec", "ports");
    List<String> portNames = ports.stream().map(p -> (String) p.get("name")).toList();

    List<Map<String, Object>> selecting = monitors("ServiceMonitor").stream()
        .filter(m -> selects(at(m, "spec", "selector"), serviceLabels)).toList();
    assertThat(selecting).as("ServiceMonitors of dcgm/monitors.yaml selecting " + file).hasSize(1);
    Map<String, Object> monitor = selecting.get(0);
    String port = at(monitor, "spec", "endpoints", "0", "port");
    assertThat(portNames).contains(port);
    List<Object> relabelings = at(monitor, "spec", "endpoints", "0", "relabelings");
    assertThat(relabelings).asString().contains("__meta_kubernetes_pod_node_name");
  }

  /**
   * node-exporter from its own chart names its container port `metrics`; kube-prometheus-stack's values rename it
   * `http-metrics` (both recorded from prometheus-community/helm-charts): the PodMonitor scrapes a pod of either, and
   * the scrape config keeps the chart's pods by name and port number.
   */
  @Test
  void nodeExporterIsScrapedWhicheverChartInstalledIt() throws Exception {
    Map<String, Object> stack = yaml(REAL.resolve("node-exporter/charts/kube-prometheus-stack-values-node-exporter.yaml"), 0);
    Map<String, Object> ownService = at(yaml(REAL.resolve("node-exporter/charts/prometheus-node-exporter-values-service.yaml"), 0),
        "service");
    String ownPort = (String) ownService.get("portName");
    String stackPort = at(stack, "prometheus-node-exporter", "service", "portName");
    assertThat(ownPort).isEqualTo("metrics");
    assertThat(stackPort).isEqualTo("http-metrics");
    Map<String, Object> monitor = monitors("PodMonitor").stream()
        .filter(m -> selects(at(m, "spec", "selector"), Map.of("app.kubernetes.io/name", "prometheus-node-exporter")))
        .findFirst().orElseThrow();
    List<Map<String, Object>> endpoints = at(monitor, "spec", "podMetricsEndpoints");
    assertThat(endpoints).extracting(e -> e.get("port")).contains(ownPort, stackPort);
    assertThat(endpoints).allSatisfy(e -> assertThat(e.get("relabelings")).asString().contains("__meta_kubernetes_pod_node_name"));
    assertThat(Files.readString(Path.of("../dcgm/prometheus.yml"))).contains("regex: \"" + ownService.get("port") + "\"");
  }

  private static List<Map<String, Object>> monitors(String kind) throws Exception {
    List<Map<String, Object>> out = new ArrayList<>();
    new Yaml().loadAll(Files.readString(Path.of("../dcgm/monitors.yaml"))).forEach(o -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> m = (Map<String, Object>) o;
      if (kind.equals(m.get("kind"))) {
        out.add(m);
      }
    });
    return out;
  }

  /** A Kubernetes label selector (matchLabels, and matchExpressions with In) over an object's labels. */
  @SuppressWarnings("unchecked")
  private static boolean selects(Map<String, Object> selector, Map<String, String> labels) {
    Map<String, String> match = (Map<String, String>) selector.getOrDefault("matchLabels", Map.of());
    List<Map<String, Object>> expressions = (List<Map<String, Object>>) selector.getOrDefault("matchExpressions", List.of());
    return labels.entrySet().containsAll(match.entrySet()) && expressions.stream().allMatch(e -> "In".equals(e.get("operator"))
        && ((List<String>) e.get("values")).contains(labels.get((String) e.get("key"))));
  }
}
