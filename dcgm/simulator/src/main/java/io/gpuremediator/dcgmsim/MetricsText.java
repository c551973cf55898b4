package io.gpuremediator.dcgmsim;

import io.gpuremediator.dcgmsim.CountersCsv.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Renders the simulated series in the Prometheus text format, with the labels the real exporters emit
 * (dcgm-exporter's GPU and NVLink-link formats, kube-state-metrics, node-problem-detector,
 * neuron-monitor) plus, unless turned off, the {@code node} label the scrape relabel adds. Turned off,
 * the series are exactly the exporters' own, and the production relabel config must add {@code node}.
 *
 * <p>dcgm-exporter runs in Kubernetes mode, as the GPU Operator and the Helm chart run it: a GPU's series name the pod
 * using it ({@code container}, {@code namespace}, {@code pod}; empty when idle, as a real capture shows them). Every
 * healthy GPU runs a training job; a fault kills it, so a faulted GPU's series go on without the pod, in new series.
 */
final class MetricsText {
  private static final String DRIVER = "550.127.05";
  /** The driver of nodes that report the GPU recovery action (R565 and later). */
  private static final String DRIVER_WITH_RECOVERY_ACTION = "570.133.20";
  /** The recovery action's names: released exporters' and DCGM 4.6's. */
  private static final Set<String> RECOVERY_ACTION = Set.of("DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION", "DCGM_FI_DEV_GPU_RECOVERY_ACTION");
  /** The per-link NVLink state's names: released exporters' and DCGM 4.6's. */
  private static final Set<String> NVLINK_LINK_STATE = Set.of("DCGM_FI_DEV_NVLINK_GET_STATE", "DCGM_FI_DEV_NVLINK_LINK_STATUS");
  private static final String MODEL = "NVIDIA H100 80GB HBM3";
  private static final int NVLINKS = 18;
  private static final int NVLINK_THAT_FAILS = 3;
  /** The health watches served per GPU (dcgm-exporter serves one series per GPU and watch). */
  private static final List<String> HEALTH_WATCHES = List.of("PCIE", "NVLINK", "MEM", "THERMAL");
  private static final int HEALTH_PASS = 0;
  private static final int HEALTH_FAIL = 20;
  /** An HGX H100 board's NVSwitches, each a switch entity of dcgm-exporter (nvswitch, hostname labels). */
  /** dcgm-exporter's default --xid-count-window-size (5 minutes). */
  private static final String XID_WINDOW_MS = "300000";
  private static final int NVSWITCHES = 4;
  private static final Set<String> SWITCH_FIELDS = Set.of("DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS");
  /** Fabric Manager's status: 3 Success, 4 Failure (dcgmFabricManagerStatus_t). */
  private static final int FM_SUCCESS = 3;
  private static final int FM_FAILURE = 4;
  /** Every fabric health sub-field false (healthy), configuration none: 2 + 2<<2 + 2<<4 + 2<<6 + 1<<8. */
  private static final int FABRIC_HEALTHY = 426;
  /** The same with the route unhealthy (bits 4-5 = 1). */
  private static final int FABRIC_ROUTE_UNHEALTHY = 410;
  private static final int SXID_FATAL = 12028;
  private static final Map<String, String> XID_MESSAGES = Map.ofEntries(
      Map.entry("0", "No Error"), Map.entry("13", "Graphics Engine Exception"),
      Map.entry("31", "GPU memory page fault"), Map.entry("43", "GPU stopped processing"),
      Map.entry("45", "Preemptive cleanup, due to previous errors"), Map.entry("48", "DBE (Double Bit Error) ECC Error"),
      Map.entry("63", "ECC page retirement or row remapping recording event"),
      Map.entry("64", "ECC page retirement or row remapper recording failure"), Map.entry("68", "NVDEC0 Exception"),
      Map.entry("74", "NVLINK Error"), Map.entry("79", "GPU has fallen off the bus"),
      Map.entry("94", "Contained ECC error"), Map.entry("95", "Uncontained ECC error"),
      Map.entry("119", "GSP RPC Timeout"), Map.entry("120", "GSP Error"));

  private final CountersCsv csv;
  private final SimFleet fleet;
  private final boolean nodeLabel;

  MetricsText(CountersCsv csv, SimFleet fleet, boolean nodeLabel) {
    this.csv = csv;
    this.fleet = fleet;
    this.nodeLabel = nodeLabel;
  }

  /** What dcgm-exporter on {@code node} serves: every CSV field for every GPU still on the bus. */
  String dcgm(String node) {
    StringBuilder out = new StringBuilder(64 * 1024);
    for (Field field : csv.metrics()) {
      header(out, field.name(), field.help(), field.type());
      if (SWITCH_FIELDS.contains(field.name())) {
        String fabric = fabric(node);
        for (int sw = 0; sw < NVSWITCHES; sw++) {
          sample(out, field.name(), withNode(new LinkedHashMap<>(Map.of("nvswitch", "nvswitch" + sw, "hostname", node)), node),
              sw == 0 && fabric.equals("nvswitch") ? SXID_FATAL : 0);
        }
        continue;
      }
      for (int gpu = 0; gpu < SimFleet.GPUS_PER_NODE; gpu++) {
        if (fleet.fault(node, gpu, FaultKind.GPU_LOST).isPresent()) {
          continue;
        }
        boolean nvlinkDown = fleet.fault(node, gpu, FaultKind.NVLINK_DOWN).isPresent();
        if (NVLINK_LINK_STATE.contains(field.name())) {
          for (int link = 0; link < NVLINKS; link++) {
            sample(out, field.name(), linkLabels(node, gpu, link), link == NVLINK_THAT_FAILS && nvlinkDown ? 0 : 1);
          }
        } else if (field.name().equals("DCGM_EXP_GPU_HEALTH_STATUS")) {
          // A link down fails DCGM's NVLINK watch too, as on a real GPU; the code is a label of the series.
          for (String watch : HEALTH_WATCHES) {
            boolean fails = watch.equals("NVLINK") && nvlinkDown;
            Map<String, String> labels = gpuLabels(node, gpu);
            labels.put("health_watch", watch);
            labels.put("health_error_code", fails ? "DCGM_FR_NVLINK_DOWN" : "DCGM_FR_OK");
            sample(out, field.name(), labels, fails ? HEALTH_FAIL : HEALTH_PASS);
          }
        } else if (field.name().equals("DCGM_EXP_XID_ERRORS_COUNT")) {
          // As expcollector.go writes it: the XIDs in the window by code (`xid`), else one series of 0 without `xid`.
          // The window holds the injected XID while it is injected (the demo's faults last less than its 5 minutes).
          Map<String, String> labels = gpuLabels(node, gpu);
          labels.put("window_size_in_ms", XID_WINDOW_MS);
          Optional<String> code = fleet.fault(node, gpu, FaultKind.XID).map(SimFleet.Fault::value);
          code.ifPresent(c -> labels.put("xid", c));
          sample(out, field.name(), labels, code.isPresent() ? 1 : 0);
        } else if (RECOVERY_ACTION.contains(field.name()) && !fleet.reportsRecoveryAction(node)) {
          continue;   // an older driver: DCGM has no value, and dcgm-exporter writes no series
        } else {
          Map<String, String> labels = gpuLabels(node, gpu);
          if (field.name().equals("DCGM_FI_DEV_XID_ERRORS")) {
            String code = fleet.fault(node, gpu, FaultKind.XID).map(SimFleet.Fault::value).orElse("0");
            labels.put("err_code", code);
            labels.put("err_msg", XID_MESSAGES.getOrDefault(code, "Unknown Error"));
          }
          sample(out, field.name(), labels, value(field.name(), node, gpu));
        }
      }
    }
    return out.toString();
  }

  private double value(String field, String node, int gpu) {
    boolean hot = fleet.fault(node, gpu, FaultKind.OVERHEAT).isPresent();
    return switch (field) {
      case "DCGM_FI_DEV_GPU_TEMP" -> hot ? 92 : 38 + gpu;
      case "DCGM_FI_DEV_MEMORY_TEMP" -> hot ? 98 : 44 + gpu;
      case "DCGM_FI_DEV_POWER_USAGE" -> 512.25 - gpu;
      case "DCGM_FI_DEV_GPU_UTIL" -> 93;
      case "DCGM_FI_DEV_SM_CLOCK" -> 1980;   // an H100 SXM's boost clock, every GPU alike
      case "DCGM_FI_DEV_FB_USED" -> 71234;
      case "DCGM_FI_DEV_XID_ERRORS" -> fleet.fault(node, gpu, FaultKind.XID).map(f -> Double.parseDouble(f.value())).orElse(0.0);
      case "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" -> fleet.dbeCount(node, gpu);
      // Lifetime history a healthy fleet carries; it must never alert.
      case "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL" -> 1200 + gpu;
      case "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS" -> 2;
      case "DCGM_FI_DEV_ROW_REMAP_FAILURE" -> fleet.fault(node, gpu, FaultKind.ROW_REMAP_FAILURE).isPresent() ? 1 : 0;
      case "DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION", "DCGM_FI_DEV_GPU_RECOVERY_ACTION" ->
          fleet.fault(node, gpu, FaultKind.RECOVERY_ACTION).map(f -> Double.parseDouble(f.value())).orElse(0.0);
      case "DCGM_FI_DEV_FABRIC_MANAGER_STATUS" -> fabric(node).equals("manager") ? FM_FAILURE : FM_SUCCESS;
      case "DCGM_FI_DEV_FABRIC_HEALTH_MASK" -> fabric(node).equals("route_unhealthy") ? FABRIC_ROUTE_UNHEALTHY : FABRIC_HEALTHY;
      default -> 0;
    };
  }

  /** The node's fabric fault, if it has one: route_unhealthy, manager or nvswitch. */
  private String fabric(String node) {
    return fleet.fault(node, -1, FaultKind.FABRIC).map(SimFleet.Fault::value).orElse("");
  }

  private Map<String, String> gpuLabels(String node, int gpu) {
    Map<String, String> l = new LinkedHashMap<>();
    l.put("gpu", Integer.toString(gpu));
    l.put("UUID", uuid(node, gpu));
    l.put("pci_bus_id", pciBusId(gpu));
    l.put("device", "nvidia" + gpu);
    l.put("modelName", MODEL);
    l.put("Hostname", node);
    if (csv.enables("DCGM_FI_DRIVER_VERSION")) {
      l.put("DCGM_FI_DRIVER_VERSION", fleet.reportsRecoveryAction(node) ? DRIVER_WITH_RECOVERY_ACTION : DRIVER);
    }
    if (csv.enables("DCGM_FI_DEV_SERIAL")) {
      l.put("DCGM_FI_DEV_SERIAL", String.format("1654123%06d", Math.abs((node + gpu).hashCode()) % 1_000_000));
    }
    boolean busy = !fleet.faulted(node, gpu);
    l.put("container", busy ? "trainer" : "");
    l.put("namespace", busy ? "training" : "");
    l.put("pod", busy ? node + "-trainer-" + gpu : "");
    return withNode(l, node);
  }

  private Map<String, String> withNode(Map<String, String> labels, String node) {
    if (nodeLabel) {
      labels.put("node", node);
    }
    return labels;
  }

  private Map<String, String> linkLabels(String node, int gpu, int link) {
    Map<String, String> l = new LinkedHashMap<>();
    l.put("nvlink", Integer.toString(link));
    l.put("gpu", Integer.toString(gpu));
    l.put("gpu_uuid", uuid(node, gpu));
    l.put("pci_bus_id", pciBusId(gpu));
    l.put("device", "nvidia" + gpu);
    l.put("model_name", MODEL);
    l.put("hostname", node);
    return withNode(l, node);
  }

  private static String uuid(String node, int gpu) {
    String hex = String.format("%08x%08x", (node + "/" + gpu).hashCode(), (gpu + "/" + node).hashCode());
    return "GPU-" + hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-a1b2-c3d4e5f6a7b8";
  }

  private static String pciBusId(int gpu) {
    return String.format("00000000:%02X:00.0", 0x18 + gpu * 0x10);
  }

  /** What kube-state-metrics serves about the simulated nodes. */
  String kubeStateMetrics() {
    StringBuilder out = new StringBuilder();
    header(out, "kube_node_info", "Information about a cluster node.", "gauge");
    for (String node : allNodes()) {
      sample(out, "kube_node_info", Map.of("node", node, "kubelet_version", "v1.30.4",
          "container_runtime_version", "containerd://1.7.22", "internal_ip", fleet.internalIp(node)), 1);
    }
    header(out, "kube_node_status_capacity", "The capacity for different resources of a node.", "gauge");
    for (String node : fleet.gpuNodes()) {
      sample(out, "kube_node_status_capacity", Map.of("node", node, "resource", "nvidia_com_gpu", "unit", "integer"),
          SimFleet.GPUS_PER_NODE);
    }
    for (String node : fleet.trnNodes()) {
      sample(out, "kube_node_status_capacity", Map.of("node", node, "resource", "aws_amazon_com_neuron", "unit", "integer"), 16);
    }
    header(out, "kube_node_status_condition", "The condition of a cluster node.", "gauge");
    for (String node : allNodes()) {
      for (String status : new String[] {"true", "false", "unknown"}) {
        sample(out, "kube_node_status_condition", Map.of("node", node, "condition", "Ready", "status", status),
            status.equals("true") ? 1 : 0);
      }
    }
    return out.toString();
  }

  /**
   * What node-exporter serves on a GPU node, of what the rules read: the InfiniBand ports (four compute rails ACTIVE,
   * a second card's port never cabled, DOWN; a port with an ib_down fault DOWN and Polling, its link-downed count
   * up) and the memory controllers' EDAC counts. node-exporter names no node: the scrape's relabel does.
   */
  String nodeExporter(String node) {
    StringBuilder out = new StringBuilder();
    String down = fleet.fault(node, -1, FaultKind.IB_DOWN).map(SimFleet.Fault::value).orElse("");
    List<String> devices = new ArrayList<>(SimFleet.IB_DEVICES);
    devices.add(SimFleet.IB_UNCABLED);
    header(out, "node_infiniband_state_id", "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed,"
        + " 4: active, 5: act defer)", "gauge");
    for (String d : devices) {
      boolean active = SimFleet.IB_DEVICES.contains(d) && !d.equals(down);
      sample(out, "node_infiniband_state_id", Map.of("device", d, "port", "1"), active ? 4 : 1);
    }
    header(out, "node_infiniband_physical_state_id", "Physical state of the InfiniBand port (0: no change, 1: sleep,"
        + " 2: polling, 3: disable, 4: shift, 5: link up, 6: link error recover, 7: phytest)", "gauge");
    for (String d : devices) {
      boolean up = SimFleet.IB_DEVICES.contains(d) && !d.equals(down);
      sample(out, "node_infiniband_physical_state_id", Map.of("device", d, "port", "1"), up ? 5 : 2);
    }
    header(out, "node_infiniband_link_downed_total", "Number of times the link failed to recover from an error state"
        + " and went down", "counter");
    for (String d : devices) {
      sample(out, "node_infiniband_link_downed_total", Map.of("device", d, "port", "1"), fleet.linkDowned(node, d));
    }
    header(out, "node_infiniband_link_error_recovery_total", "Number of times the link successfully recovered from an"
        + " error state", "counter");
    for (String d : devices) {
      sample(out, "node_infiniband_link_error_recovery_total", Map.of("device", d, "port", "1"), 0);
    }
    header(out, "node_edac_correctable_errors_total", "Total correctable memory errors.", "counter");
    sample(out, "node_edac_correctable_errors_total", Map.of("controller", "0"), 0);
    header(out, "node_edac_uncorrectable_errors_total", "Total uncorrectable memory errors.", "counter");
    sample(out, "node_edac_uncorrectable_errors_total", Map.of("controller", "0"), 0);
    return out.toString();
  }

  /** What node-problem-detector serves on a Trainium node: the Neuron kmsg monitor's reasons. */
  String npd(String node) {
    StringBuilder out = new StringBuilder();
    String error = fleet.fault(node, -1, FaultKind.NEURON_ERROR).map(SimFleet.Fault::value).orElse("");
    header(out, "problem_gauge", "Whether a specific type of problem is affecting the node or not.", "gauge");
    for (String e : SimFleet.NEURON_ERRORS.stream().sorted().toList()) {
      sample(out, "problem_gauge", withNode(new LinkedHashMap<>(Map.of("type", "NeuronHealth", "reason", "NeuronHasError_" + e)), node),
          e.equals(error) ? 1 : 0);
    }
    header(out, "problem_counter", "Number of times a specific type of problem have occurred.", "counter");
    for (String e : SimFleet.NEURON_ERRORS.stream().sorted().toList()) {
      sample(out, "problem_counter", withNode(new LinkedHashMap<>(Map.of("reason", "NeuronHasError_" + e)), node),
          e.equals(error) ? 1 : 0);
    }
    return out.toString();
  }

  /** What neuron-monitor-prometheus serves on a Trainium node. */
  String neuronMonitor(String node) {
    StringBuilder out = new StringBuilder();
    header(out, "hardware_ecc_events_total", "Hardware ECC events.", "counter");
    for (int device = 0; device < 16; device++) {
      for (String type : new String[] {"mem_ecc_corrected", "mem_ecc_uncorrected", "sram_ecc_uncorrected"}) {
        sample(out, "hardware_ecc_events_total", withNode(new LinkedHashMap<>(Map.of("event_type", type,
            "neuron_device_index", Integer.toString(device), "instance_type", "trn1.32xlarge", "region", "us-east-1")), node),
            type.equals("mem_ecc_corrected") ? 3 : 0);
      }
    }
    return out.toString();
  }

  private List<String> allNodes() {
    List<String> all = new ArrayList<>(fleet.gpuNodes());
    all.addAll(fleet.trnNodes());
    return all;
  }

  private static void header(StringBuilder out, String name, String help, String type) {
    out.append("# HELP ").append(name).append(' ').append(help.replace("\\", "\\\\").replace("\n", "\\n")).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private static void sample(StringBuilder out, String name, Map<String, String> labels, double value) {
    out.append(name).append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(e.getKey()).append("=\"")
          .append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"');
    }
    out.append("} ");
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      out.append((long) value);
    } else {
      out.append(value);
    }
    out.append('\n');
  }
}
