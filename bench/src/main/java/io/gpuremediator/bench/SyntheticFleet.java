package io.gpuremediator.bench;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.LongToDoubleFunction;

/**
 * A synthetic GPU fleet for measuring rule cost: {@code nodes} nodes of 8 GPUs with 18 NVLink links
 * each, carrying every series the shipped rules read, with the labels dcgm-exporter, kube-state-metrics
 * and node-problem-detector put on them plus the scrape config's {@code node}, {@code job} and
 * {@code instance}. Series no rule reads (power, utilisation, bandwidth, ...) are left out: they cost
 * ingestion, not rule evaluation. A few nodes carry faults (XID 79, new DBE errors, a link down, a
 * failing NVLink health watch), so that the alerts have something to find. The per-link NVLink state is
 * served although {@code dcgm/counters.csv} leaves it opt-in: the shipped rules must not pay for series they
 * do not read, and the opt-in rule is measured on them.
 *
 * <p>Also the recording rules' own outputs that other rules read over a range ({@code max_over_time}), for
 * the history: in a running Prometheus, those exist for as long as it ran.
 */
final class SyntheticFleet {
  static final int GPUS = 8;
  static final int LINKS = 18;
  private static final String MODEL = "NVIDIA H100 80GB HBM3";

  /** One series: its metric and label text, and its value at a time (unix seconds). */
  record Series(String name, String labels, LongToDoubleFunction value) {}

  /** InfiniBand ports per node: four compute rails and a second card's port never cabled. */
  static final int IB_PORTS = 5;

  private final int nodes;

  SyntheticFleet(int nodes) {
    this.nodes = nodes;
  }

  private static boolean xidNode(int n) {
    return n % 100 == 3;
  }

  private static boolean dbeNode(int n) {
    return n % 100 == 7;
  }

  private static boolean linkDownNode(int n) {
    return n % 100 == 11;
  }

  private static boolean healthFailNode(int n) {
    return n % 100 == 13;
  }

  /** The InfiniBand, PCIe and power-brake faults, one node in a hundred each. */
  private static boolean ibDownNode(int n) {
    return n % 100 == 17;
  }

  private static boolean pcieNode(int n) {
    return n % 100 == 19;
  }

  private static boolean brakeNode(int n) {
    return n % 100 == 23;
  }

  /**
   * The raw series, family by family: as the exporters serve them, or as Prometheus stores them after
   * {@code dcgm/prometheus.yml}'s metric relabelling (the NVLink link series without the GPU's own labels).
   */
  List<List<Series>> raw(boolean ingested) {
    List<List<Series>> families = new ArrayList<>();
    families.add(perGpu("DCGM_FI_DEV_XID_ERRORS", (n, g) -> xid(n, g) == 0 ? ",err_code=\"0\",err_msg=\"No Error\""
        : ",err_code=\"79\",err_msg=\"GPU has fallen off the bus\"", (n, g) -> t -> xid(n, g)));
    families.add(perGpu("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", (n, g) -> "", (n, g) -> t -> dbeNode(n) && g == 1 ? t / 300 : 0));
    families.add(perGpu("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", (n, g) -> "", (n, g) -> t -> g == 2 ? (t / 600) % 1000 : 0));
    families.add(perGpu("DCGM_FI_DEV_ROW_REMAP_FAILURE", (n, g) -> "", (n, g) -> t -> 0));
    families.add(perGpu("DCGM_FI_DEV_GPU_TEMP", (n, g) -> "", (n, g) -> t -> gpuTemp(g, t)));
    families.add(perGpu("DCGM_FI_DEV_MEMORY_TEMP", (n, g) -> "", (n, g) -> t -> memoryTemp(g, t)));
    families.add(perGpu("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", (n, g) -> "", (n, g) -> t -> 0));
    families.add(perGpu("DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", (n, g) -> "", (n, g) -> t -> (t / 300) % 50));
    families.add(perGpu("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", (n, g) -> "", (n, g) -> t -> (t / 60) % 500));
    List<Series> health = new ArrayList<>();
    for (String watch : List.of("PCIE", "NVLINK", "MEM", "THERMAL")) {
      health.addAll(perGpu("DCGM_EXP_GPU_HEALTH_STATUS", (n, g) -> ",health_watch=\"" + watch + "\",health_error_code=\""
          + (failing(n, g, watch) ? "DCGM_FR_NVLINK_DOWN" : "DCGM_FR_OK") + "\"", (n, g) -> t -> failing(n, g, watch) ? 20 : 0));
    }
    families.add(health);
    List<Series> links = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      for (int g = 0; g < GPUS; g++) {
        for (int l = 0; l < LINKS; l++) {
          boolean down = linkDownNode(n) && g == 4 && l == 3;
          String gpuLabels = ingested ? "" : ",gpu_uuid=\"" + uuid(n, g) + "\",pci_bus_id=\"" + pciBusId(g) + "\",device=\"nvidia" + g
              + "\",model_name=\"" + MODEL + "\",hostname=\"" + node(n) + "\"";
          links.add(new Series("DCGM_FI_DEV_NVLINK_LINK_STATUS", "{nvlink=\"" + l + "\",gpu=\"" + g + "\"" + gpuLabels
              + target(n, "dcgm-exporter", 9400) + "}", t -> down ? 0 : 1));
        }
      }
    }
    families.add(links);
    families.add(perNode("up", n -> "{job=\"dcgm-exporter\",instance=\"" + ip(n) + ":9400\",node=\"" + node(n) + "\"}", 1));
    families.add(perNode("kube_node_info", n -> "{node=\"" + node(n) + "\",kubelet_version=\"v1.30.4\",internal_ip=\"" + ip(n)
        + "\",job=\"kube-state-metrics\",instance=\"10.9.0.1:8080\"}", 1));
    families.add(capacity());
    List<Series> conditions = new ArrayList<>();
    for (String status : List.of("true", "false", "unknown")) {
      conditions.addAll(perNode("kube_node_status_condition", n -> "{node=\"" + node(n) + "\",condition=\"Ready\",status=\"" + status
          + "\",job=\"kube-state-metrics\",instance=\"10.9.0.1:8080\"}", status.equals("true") ? 1 : 0));
    }
    families.add(conditions);
    List<Series> npd = new ArrayList<>();
    for (String type : List.of("GpuCount", "GpuNvlink", "GpuXid", "GpuEcc")) {
      npd.addAll(perNode("problem_gauge", n -> "{type=\"" + type + "\",reason=\"" + type + "Bad\"" + target(n, "node-problem-detector", 20257)
          + "}", 0));
    }
    families.add(npd);
    // PCIe, clock events, InfiniBand ports and host memory (rules/gpu-pcie, gpu-clocks, infiniband, node-memory).
    families.add(perGpu("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", (n, g) -> "", (n, g) -> t -> t / 600));
    families.add(perGpu("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", (n, g) -> "", (n, g) -> t -> brakeNode(n) && g == 6 ? 132 : 4));
    families.add(perGpu("DCGM_FI_DEV_GPU_UTIL", (n, g) -> "", (n, g) -> t -> 90));
    families.add(perGpu("DCGM_FI_DEV_PCIE_LINK_GEN", (n, g) -> "", (n, g) -> t -> 5));
    families.add(perGpu("DCGM_FI_DEV_PCIE_MAX_LINK_GEN", (n, g) -> "", (n, g) -> t -> 5));
    families.add(perGpu("DCGM_FI_DEV_PCIE_LINK_WIDTH", (n, g) -> "", (n, g) -> t -> pcieNode(n) && g == 2 ? 8 : 16));
    families.add(perGpu("DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", (n, g) -> "", (n, g) -> t -> 16));
    for (String metric : List.of("node_infiniband_state_id", "node_infiniband_link_downed_total",
        "node_infiniband_link_error_recovery_total")) {
      families.add(perPort(metric, (n, d) -> metric.equals("node_infiniband_state_id")
          ? (d == IB_PORTS - 1 || ibDownNode(n) && d == 2 ? 1 : 4) : 0));
    }
    families.add(perNode("node_edac_uncorrectable_errors_total", n -> "{controller=\"0\"" + target(n, "node-exporter", 9100) + "}",
        0));
    return families;
  }

  private interface PerPort {
    double of(int node, int device);
  }

  private List<Series> perPort(String name, PerPort value) {
    List<Series> out = new ArrayList<>(nodes * IB_PORTS);
    for (int n = 0; n < nodes; n++) {
      for (int d = 0; d < IB_PORTS; d++) {
        double v = value.of(n, d);
        out.add(new Series(name, "{device=\"mlx5_" + d + "\",port=\"1\"" + target(n, "node-exporter", 9100) + "}", t -> v));
      }
    }
    return out;
  }

  /**
   * The hourly group's records of which InfiniBand ports were ACTIVE, as a week of its runs left them: each hour's
   * maximum ({@code node_port:infiniband_active:max1h}, which the week's record reads) and the week's
   * ({@code node_port:infiniband_active:max7d}, which InfinibandLinkDown reads).
   */
  List<Series> hourlyInfiniband() {
    List<Series> out = new ArrayList<>(2 * nodes * IB_PORTS);
    for (String record : List.of("node_port:infiniband_active:max1h", "node_port:infiniband_active:max7d")) {
      for (int n = 0; n < nodes; n++) {
        for (int d = 0; d < IB_PORTS; d++) {
          double v = d == IB_PORTS - 1 ? 0 : 1;
          out.add(new Series(record, "{node=\"" + node(n) + "\",device=\"mlx5_" + d + "\",port=\"1\"}", t -> v));
        }
      }
    }
    return out;
  }

  /** Each node's GPU capacity from kube-state-metrics (a rule reads its most over a day). */
  List<Series> capacity() {
    return perNode("kube_node_status_capacity", n -> "{node=\"" + node(n) + "\",resource=\"nvidia_com_gpu\",unit=\"integer\","
        + "job=\"kube-state-metrics\",instance=\"10.9.0.1:8080\"}", GPUS);
  }

  /** The hourly record of the most GPUs each node reported ({@code node:dcgm_gpus:max1h}), read back over a day. */
  List<Series> hourlyGpuCount() {
    return perNode("node:dcgm_gpus:max1h", n -> "{node=\"" + node(n) + "\"}", GPUS);
  }

  /**
   * What the recording rules read back over a range would hold after running for the whole history: the XID
   * codes GPUs hold ({@code gpu:dcgm_xid_errors:max} records non-zero codes only), each node's GPU count and each
   * GPU's NVLink proof.
   */
  List<List<Series>> recorded() {
    List<Series> xids = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      for (int g = 0; g < GPUS; g++) {
        double code = xid(n, g);
        if (code != 0) {
          xids.add(new Series("gpu:dcgm_xid_errors:max", "{node=\"" + node(n) + "\",gpu=\"" + g + "\",err_code=\"" + format(code) + "\"}",
              t -> code));
        }
      }
    }
    List<Series> nvlink = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      for (int g = 0; g < GPUS; g++) {
        nvlink.add(new Series("gpu:dcgm_nvlink:had_active", "{node=\"" + node(n) + "\",gpu=\"" + g + "\"}", t -> 1));
      }
    }
    // The GPU count of each node and the proof that each GPU has NVLink, which rules read back over an hour and 15 minutes.
    return List.of(xids, perNode("node:dcgm_gpus:count", n -> "{node=\"" + node(n) + "\"}", GPUS), nvlink);
  }

  /** The families split by the node their series are about: one scrape target per node, as in a cluster. */
  List<List<List<Series>>> byNode(List<List<Series>> families) {
    List<List<List<Series>>> out = new ArrayList<>(nodes);
    for (int n = 0; n < nodes; n++) {
      List<List<Series>> own = new ArrayList<>();
      for (int f = 0; f < families.size(); f++) {
        own.add(new ArrayList<>());
      }
      out.add(own);
    }
    for (int f = 0; f < families.size(); f++) {
      for (Series s : families.get(f)) {
        int at = s.labels().indexOf("node=\"gpu-node-") + "node=\"gpu-node-".length();
        out.get(Integer.parseInt(s.labels().substring(at, s.labels().indexOf('"', at)))).get(f).add(s);
      }
    }
    return out;
  }

  static String node(int n) {
    return "gpu-node-" + n;
  }

  /** The raw series at {@code t} in the Prometheus text format, for the live scrape. */
  static void exposition(List<List<Series>> families, long t, Writer out) throws IOException {
    for (List<Series> family : families) {
      if (family.isEmpty()) {
        continue;
      }
      out.write("# TYPE " + family.get(0).name() + " gauge\n");
      for (Series s : family) {
        out.write(s.name() + s.labels() + " " + format(s.value().applyAsDouble(t)) + "\n");
      }
    }
  }

  /** Every series at every {@code step} from {@code from} to {@code to}, in OpenMetrics (for promtool's backfill). */
  static void openMetrics(List<List<Series>> families, long from, long to, long step, Writer out) throws IOException {
    for (List<Series> family : families) {
      if (family.isEmpty()) {
        continue;
      }
      out.write("# TYPE " + family.get(0).name() + " gauge\n");
      for (Series s : family) {
        String prefix = s.name() + s.labels() + " ";
        for (long t = from; t <= to; t += step) {
          out.write(prefix);
          out.write(format(s.value().applyAsDouble(t)));
          out.write(' ');
          out.write(Long.toString(t));
          out.write('\n');
        }
      }
    }
  }

  private static String format(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private interface PerGpu<T> {
    T of(int node, int gpu);
  }

  private List<Series> perGpu(String name, PerGpu<String> extraLabels, PerGpu<LongToDoubleFunction> value) {
    List<Series> out = new ArrayList<>(nodes * GPUS);
    for (int n = 0; n < nodes; n++) {
      for (int g = 0; g < GPUS; g++) {
        out.add(new Series(name, "{gpu=\"" + g + "\",UUID=\"" + uuid(n, g) + "\",device=\"nvidia" + g + "\",modelName=\"" + MODEL
            + "\",pci_bus_id=\"" + pciBusId(g) + "\",Hostname=\"" + node(n) + "\"" + extraLabels.of(n, g) + target(n, "dcgm-exporter", 9400) + "}", value.of(n, g)));
      }
    }
    return out;
  }

  private List<Series> perNode(String name, IntFunction<String> labels, double value) {
    List<Series> out = new ArrayList<>(nodes);
    for (int n = 0; n < nodes; n++) {
      out.add(new Series(name, labels.apply(n), t -> value));
    }
    return out;
  }

  private static double gpuTemp(int g, long t) {
    return 40 + (t / 30 + g) % 7;
  }

  private static double memoryTemp(int g, long t) {
    return 46 + (t / 30 + g) % 5;
  }

  private static double xid(int n, int g) {
    return xidNode(n) && g == 5 ? 79 : 0;
  }

  private static boolean failing(int n, int g, String watch) {
    // A link down fails DCGM's NVLINK watch too, as on a real GPU.
    return watch.equals("NVLINK") && (healthFailNode(n) && g == 6 || linkDownNode(n) && g == 4);
  }

  private static String pciBusId(int g) {
    return String.format("00000000:%02X:00.0", 0x18 + g * 0x11);
  }

  private static String ip(int n) {
    return "10.0." + (n / 250) + "." + (n % 250 + 1);
  }

  private static String uuid(int n, int g) {
    return String.format("GPU-%08x-%04x-4%03x-a1b2-c3d4e5f6a7b8", n * 31 + g, n & 0xffff, g);
  }

  private static String target(int n, String job, int port) {
    return ",job=\"" + job + "\",instance=\"" + ip(n) + ":" + port + "\",node=\"" + node(n) + "\"";
  }
}
