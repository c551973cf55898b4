package io.gpuremediator.action;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.workload.PodInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The GPU Operator's operands that hold a node's GPUs open, and so refuse {@code nvidia-smi -r} ("In use by another
 * client"): DCGM's host engine ({@code nvidia-dcgm}) and the exporter with its embedded one ({@code nvidia-dcgm-exporter}),
 * and the DRA stack's pair ({@code -dra}). Each DaemonSet runs on the nodes labelled {@code nvidia.com/gpu.deploy.<name>:
 * "true"} and names its pods {@code nvidia-<name>-...} (tests/real/gpu-operator); the operator honours any other value of
 * its deploy labels as a pause and never sets it back (its own pauses: {@code paused-for-driver-upgrade};
 * tests/real/gpu-operator/v26.7.0-nodelabeling-paused-labels.go.txt). A reset pauses
 * those running ({@value #PAUSED}), waits until their pods have left the node, and sets them back to "true" after.
 */
final class GpuClients {
  /** The value a pause writes: the DaemonSet's nodeSelector no longer matches, its controller removes the pod. */
  static final String PAUSED = "paused-for-gpu-reset";
  private static final String PREFIX = "nvidia.com/gpu.deploy.";
  private static final List<String> OPERANDS = List.of("dcgm-exporter", "dcgm", "dcgm-exporter-dra", "dcgm-dra");

  private GpuClients() {}

  /** Pauses the operands deployed on the node; returns those paused (now, or by an earlier look). */
  static List<String> pause(Cluster cluster, String node) throws ClusterException {
    return cluster.modifyNode(node, n -> {
      Map<String, String> labels = new HashMap<>(n.labels());
      List<String> paused = new ArrayList<>();
      for (String operand : OPERANDS) {
        String value = labels.get(PREFIX + operand);
        if ("true".equals(value)) {
          labels.put(PREFIX + operand, PAUSED);
        }
        if ("true".equals(value) || PAUSED.equals(value)) {
          paused.add(operand);
        }
      }
      return new Cluster.Edited<>(labels.equals(n.labels()) ? n : n.withLabels(labels), paused);
    });
  }

  /** Sets every operand this reset paused back to "true"; returns those resumed. */
  static List<String> resume(Cluster cluster, String node) throws ClusterException {
    return cluster.modifyNode(node, n -> {
      Map<String, String> labels = new HashMap<>(n.labels());
      List<String> resumed = new ArrayList<>();
      for (String operand : OPERANDS) {
        if (PAUSED.equals(labels.get(PREFIX + operand))) {
          labels.put(PREFIX + operand, "true");
          resumed.add(operand);
        }
      }
      return new Cluster.Edited<>(resumed.isEmpty() ? n : n.withLabels(labels), resumed);
    });
  }

  /** The pods of these operands still on the node ({@code namespace/name}); a DaemonSet's pod is {@code nvidia-<name>-<id>}. */
  static List<String> stillRunning(List<PodInfo> pods, List<String> operands) {
    return stillRunningPods(pods, operands).stream().map(PodInfo::ref).toList();
  }

  /** The pods of these operands still on the node. */
  static List<PodInfo> stillRunningPods(List<PodInfo> pods, List<String> operands) {
    List<PodInfo> out = new ArrayList<>();
    for (PodInfo p : pods) {
      String name = p.name();
      boolean operand = operands.stream().anyMatch(o -> name.matches("nvidia-" + o + "-[a-z0-9]+"));
      if (p.daemonSet() && operand && !p.finished()) {
        out.add(p);
      }
    }
    return out;
  }

  /** The operands a reset paused on the node already (as the cache has it). */
  static List<String> pausedOn(Cluster cluster, String node) {
    return cluster.node(node).map(n -> OPERANDS.stream().filter(o -> PAUSED.equals(n.labels().get(PREFIX + o))).toList())
        .orElse(List.of());
  }
}
