package io.gpuremediator.dcgmsim;

/** Every endpoint's series with one fault of each kind injected: what `promtool check metrics` is run on. */
final class Dump {
  private Dump() {}

  static String everyFault(SimFleet fleet, MetricsText text) {
    String gpuNode = fleet.gpuNodes().get(0);
    fleet.inject(new SimFleet.Fault(gpuNode, 0, FaultKind.XID, "79"));
    fleet.inject(new SimFleet.Fault(gpuNode, 1, FaultKind.XID, "13"));
    fleet.inject(new SimFleet.Fault(gpuNode, 2, FaultKind.ECC_DBE, ""));
    fleet.inject(new SimFleet.Fault(gpuNode, 3, FaultKind.ROW_REMAP_FAILURE, ""));
    fleet.inject(new SimFleet.Fault(gpuNode, 4, FaultKind.NVLINK_DOWN, ""));
    fleet.inject(new SimFleet.Fault(gpuNode, 5, FaultKind.GPU_LOST, ""));
    fleet.inject(new SimFleet.Fault(gpuNode, 6, FaultKind.OVERHEAT, ""));
    fleet.inject(new SimFleet.Fault(gpuNode, 7, FaultKind.RECOVERY_ACTION, "1"));
    StringBuilder out = new StringBuilder(text.dcgm(gpuNode)).append(text.kubeStateMetrics());
    if (!fleet.trnNodes().isEmpty()) {
      String trn = fleet.trnNodes().get(0);
      fleet.inject(new SimFleet.Fault(trn, -1, FaultKind.NEURON_ERROR, "HBM_UNCORRECTABLE_ERROR"));
      out.append(text.npd(trn)).append(text.neuronMonitor(trn));
    }
    return out.toString();
  }
}
