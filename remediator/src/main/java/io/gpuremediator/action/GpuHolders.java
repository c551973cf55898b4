package io.gpuremediator.action;

import io.gpuremediator.device.DeviceRef;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.workload.PodInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pods that hold a fenced GPU ({@link io.gpuremediator.device.Devices#holders}), as a fence sees them: those it moves
 * off, and the DaemonSet pods of {@code dra.keep_namespaces} it keeps running (the GPU Operator's exporter holds every
 * GPU of its node with admin access: evicted, the node's telemetry goes dark, the fenced GPU's repair with it).
 */
record GpuHolders(List<PodInfo> moved, List<PodInfo> kept) {
  GpuHolders {
    moved = List.copyOf(moved);
    kept = List.copyOf(kept);
  }

  /** The device's holders on the run's node, finished pods left out. */
  static GpuHolders of(LongStepRun<?> run, DeviceRef device) throws ClusterException {
    List<String> names = run.ports().devices().holders(run.node(), device);
    List<PodInfo> moved = new ArrayList<>();
    List<PodInfo> kept = new ArrayList<>();
    if (names.isEmpty()) {
      return new GpuHolders(moved, kept);
    }
    Map<String, PodInfo> pods = new HashMap<>();
    for (PodInfo p : run.ports().workloads().podsOn(run.node())) {
      pods.put(p.ref(), p);
    }
    for (String name : names) {
      PodInfo p = pods.get(name);
      if (p == null || p.finished()) {
        continue; // gone, or done: it holds nothing any more
      }
      (run.ports().dra().keeps(p.namespace(), p.daemonSet()) ? kept : moved).add(p);
    }
    return new GpuHolders(moved, kept);
  }
}
