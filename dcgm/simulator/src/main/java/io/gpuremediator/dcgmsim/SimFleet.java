package io.gpuremediator.dcgmsim;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The simulated nodes and their faults. GPU nodes are {@code gpu-node-N} with 8 GPUs each; Trainium
 * nodes are {@code trn-node-N}. Thread-safe.
 */
final class SimFleet {
  static final int GPUS_PER_NODE = 8;
  static final Set<String> NEURON_ERRORS = Set.of("SRAM_UNCORRECTABLE_ERROR", "NC_UNCORRECTABLE_ERROR",
      "HBM_UNCORRECTABLE_ERROR", "DMA_ERROR", "HANG_ON_COLLECTIVES");

  /** One injected fault; {@code gpu} is -1 for node-level faults. */
  record Fault(String node, int gpu, FaultKind kind, String value) {}

  private final List<String> gpuNodes = new ArrayList<>();
  private final List<String> trnNodes = new ArrayList<>();
  private final Map<String, Fault> faults = new LinkedHashMap<>();
  private final Map<String, Long> dbeCounts = new LinkedHashMap<>();
  private final Map<String, Long> linkDowned = new LinkedHashMap<>();
  /** The nodes whose driver reports the GPU recovery action: those a recovery_action fault was ever injected on. */
  private final Set<String> recoveryActionNodes = new HashSet<>();
  /** The compute rails of every GPU node (port 1 each, ACTIVE), then a second card's port never cabled (DOWN). */
  static final List<String> IB_DEVICES = List.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3");
  static final String IB_UNCABLED = "mlx5_4";
  /** Bumped by every change to the faults, so that rendered text can be reused until the next one. */
  private long generation;

  SimFleet(int gpuNodeCount, int trnNodeCount) {
    for (int i = 0; i < gpuNodeCount; i++) {
      gpuNodes.add("gpu-node-" + i);
    }
    for (int i = 0; i < trnNodeCount; i++) {
      trnNodes.add("trn-node-" + i);
    }
  }

  List<String> gpuNodes() {
    return List.copyOf(gpuNodes);
  }

  List<String> trnNodes() {
    return List.copyOf(trnNodes);
  }

  boolean isNode(String node) {
    return gpuNodes.contains(node) || trnNodes.contains(node);
  }

  /** The InternalIP of a node: 10.0.x.y for GPU nodes, 10.1.x.y for Trainium nodes. */
  String internalIp(String node) {
    int gpu = gpuNodes.indexOf(node);
    int index = gpu >= 0 ? gpu : trnNodes.indexOf(node);
    return (gpu >= 0 ? "10.0." : "10.1.") + (index / 250) + "." + (index % 250 + 1);
  }

  /** Injects a fault; returns why it cannot be, or empty. */
  /** How a node's fabric fails ({@link FaultKind#FABRIC}). */
  static final List<String> FABRIC_FAULTS = List.of("route_unhealthy", "manager", "nvswitch");

  synchronized Optional<String> inject(Fault f) {
    Optional<String> invalid = validate(f);
    if (invalid.isPresent()) {
      return invalid;
    }
    Fault stored = f.kind().isPerGpu() ? f : new Fault(f.node(), -1, f.kind(), f.value());
    faults.put(key(f.node(), f.gpu(), f.kind()), stored);
    if (f.kind() == FaultKind.ECC_DBE) {
      dbeCounts.merge(f.node() + "/" + f.gpu(), 1L, Long::sum);
    }
    if (f.kind() == FaultKind.IB_DOWN) {
      linkDowned.merge(f.node() + "/" + f.value(), 1L, Long::sum);
    }
    if (f.kind() == FaultKind.RECOVERY_ACTION) {
      recoveryActionNodes.add(f.node());
    }
    generation++;
    return Optional.empty();
  }

  private Optional<String> validate(Fault f) {
    if (!isNode(f.node())) {
      return Optional.of("node: no simulated node named \"" + f.node() + "\"");
    }
    boolean trn = trnNodes.contains(f.node());
    if (f.kind() == FaultKind.NEURON_ERROR) {
      if (!trn) {
        return Optional.of("kind: neuron_error needs a Trainium node (trn-node-N)");
      }
      if (!NEURON_ERRORS.contains(f.value())) {
        return Optional.of("value: one of " + NEURON_ERRORS);
      }
    } else if (trn && f.kind() != FaultKind.EXPORTER_DOWN) {
      return Optional.of("kind: " + f.kind().code() + " needs a GPU node (gpu-node-N)");
    }
    if (f.kind().isPerGpu() && (f.gpu() < 0 || f.gpu() >= GPUS_PER_NODE)) {
      return Optional.of("gpu: " + f.kind().code() + " needs a GPU index from 0 to " + (GPUS_PER_NODE - 1));
    }
    if (f.kind() == FaultKind.IB_DOWN && !IB_DEVICES.contains(f.value())) {
      return Optional.of("value: one of " + IB_DEVICES);
    }
    if (f.kind() == FaultKind.XID && !f.value().matches("\\d{1,3}")) {
      return Optional.of("value: an XID code");
    }
    if (f.kind() == FaultKind.FABRIC && !FABRIC_FAULTS.contains(f.value())) {
      return Optional.of("value: one of " + FABRIC_FAULTS);
    }
    if (f.kind() == FaultKind.RECOVERY_ACTION && !f.value().matches("[1-9]")) {
      return Optional.of("value: a recovery action code, 1 to 9");
    }
    return Optional.empty();
  }

  /** Clears matching faults (null matches anything); returns how many. Counters never go back down. */
  synchronized int clear(String node, Integer gpu, FaultKind kind) {
    int before = faults.size();
    faults.values().removeIf(f -> (node == null || f.node().equals(node)) && (gpu == null || f.gpu() == gpu)
        && (kind == null || f.kind() == kind));
    generation++;
    return before - faults.size();
  }

  /** Changes whenever a fault is injected or cleared. */
  synchronized long generation() {
    return generation;
  }

  synchronized List<Fault> faults() {
    return List.copyOf(faults.values());
  }

  synchronized Optional<Fault> fault(String node, int gpu, FaultKind kind) {
    return Optional.ofNullable(faults.get(key(node, gpu, kind)));
  }

  /** Whether any fault is injected on this GPU (or on its whole node): the job that used it has died. */
  synchronized boolean faulted(String node, int gpu) {
    String own = node + "/" + gpu + "/";
    String whole = node + "/-1/";
    return faults.keySet().stream().anyMatch(k -> k.startsWith(own) || k.startsWith(whole));
  }

  /** Whether the node's driver reports the GPU recovery action (DCGM leaves the field blank on older drivers). */
  synchronized boolean reportsRecoveryAction(String node) {
    return recoveryActionNodes.contains(node);
  }

  synchronized long dbeCount(String node, int gpu) {
    return dbeCounts.getOrDefault(node + "/" + gpu, 0L);
  }

  /** How often the port of this InfiniBand device went down: never goes back down, as the kernel's counter. */
  synchronized long linkDowned(String node, String device) {
    return linkDowned.getOrDefault(node + "/" + device, 0L);
  }

  private static String key(String node, int gpu, FaultKind kind) {
    return node + "/" + (kind.isPerGpu() ? gpu : -1) + "/" + kind.code();
  }
}
