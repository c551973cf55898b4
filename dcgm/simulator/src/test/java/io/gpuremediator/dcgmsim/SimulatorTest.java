package io.gpuremediator.dcgmsim;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatorTest {
  private static final Path CSV = Path.of("../counters.csv");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private Vertx vertx;
  private int port;
  private CountersCsv csv;

  /** The shipped CSV with its opt-in per-link row turned on, so that the link format is served too. */
  private static CountersCsv withLinkState(Path dir) throws IOException {
    Path file = dir.resolve("counters.csv");
    Files.writeString(file, Files.readString(CSV)
        .replace("# DCGM_FI_DEV_NVLINK_GET_STATE,", "DCGM_FI_DEV_NVLINK_GET_STATE,"));
    return CountersCsv.read(file);
  }

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    csv = withLinkState(dir);
    SimFleet fleet = new SimFleet(3, 1);
    vertx = Vertx.vertx();
    HttpServer server = new SimulatorServer(fleet, new MetricsText(csv, fleet, true)).listen(vertx, "127.0.0.1", 0);
    port = server.actualPort();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> fault(String method, String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static long series(String text, String metric) {
    return text.lines().filter(l -> l.startsWith(metric + "{")).count();
  }

  @Test
  void servesEveryCounterCsvFieldForEveryGpuWithDcgmExporterLabels() throws Exception {
    String text = get("/metrics/dcgm/gpu-node-1").body();
    for (CountersCsv.Field f : csv.metrics()) {
      long expected = switch (f.name()) {
        case "DCGM_FI_DEV_NVLINK_GET_STATE" -> 8 * 18;
        case "DCGM_EXP_GPU_HEALTH_STATUS" -> 8 * 4;
        case "DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION" -> 0;   // gpu-node-1's driver does not report it
        case "DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS" -> 4;      // the board's four NVSwitches, not its GPUs
        default -> 8;
      };
      assertThat(series(text, f.name())).as(f.name()).isEqualTo(expected);
      assertThat(text).contains("# TYPE " + f.name() + " " + f.type());
    }
    assertThat(text).containsPattern("DCGM_FI_DEV_GPU_TEMP\\{DCGM_FI_DEV_SERIAL=\"\\d+\",DCGM_FI_DRIVER_VERSION=\"550.127.05\","
        + "Hostname=\"gpu-node-1\",UUID=\"GPU-[0-9a-f-]+\",container=\"trainer\",device=\"nvidia0\",gpu=\"0\","
        + "modelName=\"NVIDIA H100 80GB HBM3\",namespace=\"training\",node=\"gpu-node-1\",pci_bus_id=\"00000000:18:00.0\","
        + "pod=\"gpu-node-1-trainer-0\"} 38");
    assertThat(text).contains("err_code=\"0\",err_msg=\"No Error\"");
    assertThat(text).containsPattern("DCGM_FI_DEV_NVLINK_GET_STATE\\{device=\"nvidia0\",gpu=\"0\",gpu_uuid=\"GPU-[0-9a-f-]+\","
        + "hostname=\"gpu-node-1\",model_name=\"NVIDIA H100 80GB HBM3\",node=\"gpu-node-1\",nvlink=\"0\"");
  }

  @Test
  void injectedFaultsChangeTheSeriesTheRulesRead() throws Exception {
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":3,\"kind\":\"xid\",\"value\":\"79\"}").statusCode()).isEqualTo(200);
    fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":5,\"kind\":\"gpu_lost\"}");
    fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":1,\"kind\":\"ecc_dbe\"}");
    fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":2,\"kind\":\"nvlink_down\"}");
    fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":4,\"kind\":\"row_remap_failure\"}");
    fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":6,\"kind\":\"overheat\"}");
    String text = get("/metrics/dcgm/gpu-node-0").body();
    assertThat(text).containsPattern("DCGM_FI_DEV_XID_ERRORS\\{[^}]*err_code=\"79\",err_msg=\"GPU has fallen off the bus\",gpu=\"3\"[^}]*} 79");
    assertThat(series(text, "DCGM_FI_DEV_GPU_TEMP")).as("the lost GPU's series vanish").isEqualTo(7);
    // Kubernetes mode: the fault killed the job on GPU 1, so its counter goes on in a series without the pod.
    assertThat(text).containsPattern("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL\\{[^}]*container=\"\",[^}]*gpu=\"1\"[^}]*pod=\"\"} 1")
        .containsPattern("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL\\{[^}]*gpu=\"0\"[^}]*pod=\"gpu-node-0-trainer-0\"} 0");
    assertThat(text).doesNotContain("gpu=\"5\"");
    assertThat(text).containsPattern("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL\\{[^}]*gpu=\"1\"[^}]*} 1");
    assertThat(text).containsPattern("DCGM_FI_DEV_NVLINK_GET_STATE\\{[^}]*gpu=\"2\"[^}]*nvlink=\"3\",pci_bus_id=\"[^\"]+\"} 0");
    assertThat(text).containsPattern("DCGM_EXP_GPU_HEALTH_STATUS\\{[^}]*gpu=\"2\",health_error_code=\"DCGM_FR_NVLINK_DOWN\",health_watch=\"NVLINK\"[^}]*} 20");
    assertThat(text).containsPattern("DCGM_EXP_GPU_HEALTH_STATUS\\{[^}]*gpu=\"3\",health_error_code=\"DCGM_FR_OK\",health_watch=\"NVLINK\"[^}]*} 0");
    assertThat(text).containsPattern("DCGM_FI_DEV_ROW_REMAP_FAILURE\\{[^}]*gpu=\"4\"[^}]*} 1");
    assertThat(text).containsPattern("DCGM_FI_DEV_GPU_TEMP\\{[^}]*gpu=\"6\"[^}]*} 92");

    assertThat(new JsonObject(fault("DELETE", "/faults?node=gpu-node-0&gpu=5", null).body()).getInteger("cleared")).isEqualTo(1);
    assertThat(series(get("/metrics/dcgm/gpu-node-0").body(), "DCGM_FI_DEV_GPU_TEMP")).isEqualTo(8);
  }

  @Test
  void aFabricFaultIsServedAsDcgmReportsItAndAHealthyFabricReadsNonZero() throws Exception {
    String healthy = get("/metrics/dcgm/gpu-node-2").body();
    assertThat(healthy).containsPattern("DCGM_FI_DEV_FABRIC_MANAGER_STATUS\\{[^}]*gpu=\"0\"[^}]*} 3")
        .containsPattern("DCGM_FI_DEV_FABRIC_HEALTH_MASK\\{[^}]*gpu=\"0\"[^}]*} 426")
        .contains("DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS{hostname=\"gpu-node-2\",node=\"gpu-node-2\",nvswitch=\"nvswitch0\"} 0");
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-2\",\"kind\":\"fabric\"}").statusCode()).isEqualTo(200);
    assertThat(get("/metrics/dcgm/gpu-node-2").body()).as("the route unhealthy on every GPU: bits 4-5 = 1")
        .containsPattern("DCGM_FI_DEV_FABRIC_HEALTH_MASK\\{[^}]*gpu=\"7\"[^}]*} 410");
    fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"kind\":\"fabric\",\"value\":\"manager\"}");
    fault("POST", "/faults", "{\"node\":\"gpu-node-1\",\"kind\":\"fabric\",\"value\":\"nvswitch\"}");
    assertThat(get("/metrics/dcgm/gpu-node-0").body()).containsPattern("DCGM_FI_DEV_FABRIC_MANAGER_STATUS\\{[^}]*gpu=\"0\"[^}]*} 4");
    assertThat(get("/metrics/dcgm/gpu-node-1").body())
        .contains("DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS{hostname=\"gpu-node-1\",node=\"gpu-node-1\",nvswitch=\"nvswitch0\"} 12028");
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"kind\":\"fabric\",\"value\":\"power\"}").body())
        .contains("value: one of [route_unhealthy, manager, nvswitch]");
  }

  @Test
  void aRecoveryActionIsReportedByEveryGpuOfItsNodeFromThenOnAndNowhereElse() throws Exception {
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":4,\"kind\":\"recovery_action\",\"value\":\"1\"}")
        .statusCode()).isEqualTo(200);
    String text = get("/metrics/dcgm/gpu-node-0").body();
    assertThat(series(text, "DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION")).isEqualTo(8);
    assertThat(text).containsPattern("DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION\\{[^}]*DCGM_FI_DRIVER_VERSION=\"570[^}]*gpu=\"4\"[^}]*} 1")
        .containsPattern("DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION\\{[^}]*gpu=\"3\"[^}]*} 0");
    assertThat(series(get("/metrics/dcgm/gpu-node-1").body(), "DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION")).isZero();
    fault("DELETE", "/faults?node=gpu-node-0&kind=recovery_action", null);
    assertThat(get("/metrics/dcgm/gpu-node-0").body()).containsPattern("DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION\\{[^}]*gpu=\"4\"[^}]*} 0");
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":4,\"kind\":\"recovery_action\",\"value\":\"x\"}")
        .statusCode()).isEqualTo(400);
  }

  @Test
  void theShippedCsvLeavesPerLinkStateOff() throws Exception {
    assertThat(CountersCsv.read(CSV).metrics()).extracting(CountersCsv.Field::name)
        .contains("DCGM_EXP_GPU_HEALTH_STATUS").doesNotContain("DCGM_FI_DEV_NVLINK_GET_STATE");
    assertThat(csv.metrics()).extracting(CountersCsv.Field::name).contains("DCGM_FI_DEV_NVLINK_GET_STATE");
  }

  @Test
  void anExporterThatIsDownAnswers503() throws Exception {
    fault("POST", "/faults", "{\"node\":\"gpu-node-2\",\"kind\":\"exporter_down\"}");
    assertThat(get("/metrics/dcgm/gpu-node-2").statusCode()).isEqualTo(503);
    assertThat(get("/metrics/dcgm/gpu-node-1").statusCode()).isEqualTo(200);
  }

  @Test
  void aNeuronErrorLatchesTheNpdGauge() throws Exception {
    assertThat(fault("POST", "/faults", "{\"node\":\"trn-node-0\",\"kind\":\"neuron_error\",\"value\":\"HBM_UNCORRECTABLE_ERROR\"}")
        .statusCode()).isEqualTo(200);
    assertThat(get("/metrics/npd/trn-node-0").body()).contains(
        "problem_gauge{node=\"trn-node-0\",reason=\"NeuronHasError_HBM_UNCORRECTABLE_ERROR\",type=\"NeuronHealth\"} 1",
        "problem_gauge{node=\"trn-node-0\",reason=\"NeuronHasError_DMA_ERROR\",type=\"NeuronHealth\"} 0");
  }

  @Test
  void anInfinibandPortGoesDownAndItsLinkDownedCountStays() throws Exception {
    assertThat(get("/metrics/node-exporter/gpu-node-1").body()).contains(
        "node_infiniband_state_id{device=\"mlx5_0\",port=\"1\"} 4",
        "node_infiniband_state_id{device=\"mlx5_4\",port=\"1\"} 1",
        "node_edac_uncorrectable_errors_total{controller=\"0\"} 0");
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-1\",\"kind\":\"ib_down\",\"value\":\"mlx5_2\"}")
        .statusCode()).isEqualTo(200);
    assertThat(get("/metrics/node-exporter/gpu-node-1").body()).contains(
        "node_infiniband_state_id{device=\"mlx5_2\",port=\"1\"} 1",
        "node_infiniband_physical_state_id{device=\"mlx5_2\",port=\"1\"} 2",
        "node_infiniband_link_downed_total{device=\"mlx5_2\",port=\"1\"} 1",
        "node_infiniband_state_id{device=\"mlx5_0\",port=\"1\"} 4");
    fault("DELETE", "/faults?node=gpu-node-1&kind=ib_down", null);
    assertThat(get("/metrics/node-exporter/gpu-node-1").body()).contains(
        "node_infiniband_state_id{device=\"mlx5_2\",port=\"1\"} 4",
        "node_infiniband_link_downed_total{device=\"mlx5_2\",port=\"1\"} 1");
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-1\",\"kind\":\"ib_down\",\"value\":\"eth0\"}")
        .statusCode()).isEqualTo(400);
    assertThat(get("/metrics/node-exporter/trn-node-0").statusCode()).isEqualTo(404);
  }

  @Test
  void kubeStateMetricsDescribesTheNodes() throws Exception {
    assertThat(get("/metrics/kube-state-metrics").body()).contains(
        "kube_node_status_capacity{node=\"gpu-node-0\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 8",
        "kube_node_status_condition{condition=\"Ready\",node=\"trn-node-0\",status=\"true\"} 1");
    assertThat(new JsonObject(get("/nodes").body()).getJsonArray("nodes")).hasSize(4);
  }

  @Test
  void withoutTheNodeLabelTheExportersSeriesCarryOnlyTheirOwnLabels() {
    SimFleet fleet = new SimFleet(1, 1);
    MetricsText raw = new MetricsText(csv, fleet, false);
    assertThat(raw.dcgm("gpu-node-0") + raw.npd("trn-node-0") + raw.neuronMonitor("trn-node-0")).doesNotContain("node=\"")
        .contains("Hostname=\"gpu-node-0\"", "hostname=\"gpu-node-0\"");
    assertThat(raw.kubeStateMetrics()).as("kube-state-metrics names the node it describes itself")
        .contains("kube_node_info{container_runtime_version=\"containerd://1.7.22\",internal_ip=\"10.0.0.1\",kubelet_version=\"v1.30.4\",node=\"gpu-node-0\"}");
  }

  @Test
  void badFaultsAre400AndChangeNothing() throws Exception {
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-9\",\"gpu\":0,\"kind\":\"xid\"}").body()).contains("no simulated node");
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"gpu\":8,\"kind\":\"xid\"}").statusCode()).isEqualTo(400);
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"kind\":\"meltdown\"}").statusCode()).isEqualTo(400);
    assertThat(fault("POST", "/faults", "{\"node\":\"gpu-node-0\",\"kind\":\"neuron_error\",\"value\":\"DMA_ERROR\"}").statusCode())
        .isEqualTo(400);
    assertThat(fault("POST", "/faults", "not json").statusCode()).isEqualTo(400);
    assertThat(new JsonObject(get("/faults").body()).getJsonArray("faults")).isEmpty();
  }

  /**
   * promtool parses everything; its only findings are lints on the exporters' own naming (dcgm-exporter's
   * uppercase counters without _total and camelCase labels, NPD's problem_counter and problem_gauge), never
   * on anything else.
   */
  @Test
  void promtoolParsesTheSeriesAndFindsOnlyTheExportersOwnNaming() throws Exception {
    SimFleet fleet = new SimFleet(2, 1);
    String dump = Dump.everyFault(fleet, new MetricsText(csv, fleet, true));
    Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
    promtool.getOutputStream().write(dump.getBytes(StandardCharsets.UTF_8));
    promtool.getOutputStream().close();
    String out = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(promtool.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(promtool.exitValue()).as(out).isIn(0, 3);
    Pattern exportersOwnNaming = Pattern.compile("(DCGM_(FI|EXP)_\\w+|problem_counter|problem_gauge) (counter metrics should have"
        + " \"_total\" suffix|metric name should not include type '(counter|gauge)'|label names should be written in 'snake_case'"
        + " not 'camelCase')");
    List<String> findings = out.lines().filter(l -> !l.isBlank()).toList();
    assertThat(findings).allMatch(l -> exportersOwnNaming.matcher(l).matches(), "only the exporters' own naming");
  }

  @Test
  void promtoolIsInstalled() throws IOException, InterruptedException {
    assertThat(new ProcessBuilder("promtool", "--version").start().waitFor()).as("run `make test`, which installs it").isZero();
  }
}
