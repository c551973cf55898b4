package io.gpuremediator.dcgmsim;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** The faults the simulator can inject, and whether each is about one GPU or the whole node. */
enum FaultKind {
  /** An XID (value: the code; 79 by default). Hardware or application class depends on the code. */
  XID(true),
  /**
   * The driver asks for a recovery action (value: the NVML code, 1 GPU reset ... 7 system reboot): the GPU's
   * DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION reads it. The node's driver is then one that reports the action (R565 and
   * later): every GPU of the node reports it from then on, 0 when cleared; other nodes' drivers report nothing.
   */
  RECOVERY_ACTION(true),
  /** Double-bit (uncorrectable) ECC errors: the volatile DBE counter rises by one. */
  ECC_DBE(true),
  /** Row remapping failed (DCGM_FI_DEV_ROW_REMAP_FAILURE = 1). */
  ROW_REMAP_FAILURE(true),
  /** An NVLink link of the GPU goes inactive. */
  NVLINK_DOWN(true),
  /** The GPU falls off the bus without any XID: its series vanish. */
  GPU_LOST(true),
  /** The GPU runs hot (92 °C core, 98 °C memory). */
  OVERHEAT(true),
  /** An InfiniBand port of the node goes down (value: its device, mlx5_0 by default; port 1): Polling, link downed. */
  IB_DOWN(false),
  /**
   * The node's NVLink fabric fails (value: route_unhealthy, the default: every GPU's fabric health mask reports the
   * route unhealthy; manager: Fabric Manager failed, status 4; nvswitch: NVSwitch 0 reports fatal SXid 12028).
   */
  FABRIC(false),
  /** The node's exporter stops answering (503): telemetry loss. */
  EXPORTER_DOWN(false),
  /** A Neuron hardware error on a Trainium node (value: HBM_UNCORRECTABLE_ERROR, DMA_ERROR, HANG_ON_COLLECTIVES, ...). */
  NEURON_ERROR(false);

  private final boolean perGpu;

  FaultKind(boolean perGpu) {
    this.perGpu = perGpu;
  }

  boolean isPerGpu() {
    return perGpu;
  }

  String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  static Optional<FaultKind> fromCode(String code) {
    return Arrays.stream(values()).filter(k -> k.code().equals(code)).findFirst();
  }
}
