package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.device.DeviceRef;
import io.gpuremediator.device.FenceRule;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.workload.PodInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a {@code gpu_reset} or {@code diagnose} after a {@code fence_gpu} acts on: the episode's fenced GPUs only, by
 * UUID, and only once no pod holds them (a ResourceClaim allocated one and reserved for a pod or its PodGroup) and no
 * rule's eviction is in progress. Under {@code NoExecute} the fence evicts those pods; under {@code NoSchedule} they
 * finish on their own.
 */
final class FencedGpus {
  private FencedGpus() {}

  /** The fenced GPUs' UUIDs, comma-separated ({@code nvidia-smi -i} and {@code NVIDIA_VISIBLE_DEVICES} take them); empty: none. */
  static String uuids(LongStepRun<?> run) {
    return String.join(",", run.episode().fenced().stream().map(FencedGpu::uuid).toList());
  }

  /**
   * A wait while a pod still holds a fenced GPU, or its rule's eviction is still in progress; empty when neither (or
   * nothing is fenced). The DaemonSet pods a fence keeps ({@code dra.keep_namespaces}) are not waited for.
   */
  static Optional<StepStart> waitWhileHeld(LongStepRun<?> run, String what) throws ClusterException {
    List<String> holders = new ArrayList<>();
    for (FencedGpu g : run.episode().fenced()) {
      for (PodInfo pod : GpuHolders.of(run, new DeviceRef(g.driver(), g.pool(), g.device())).moved()) {
        holders.add(pod.ref() + " holds GPU " + g.uuid());
      }
      run.ports().devices().rule(g.rule()).flatMap(FenceRule::evictionInProgress).ifPresent(m -> holders.add(
          "DeviceTaintRule " + g.rule() + " says EvictionInProgress" + (m.isEmpty() ? "" : " (" + m + ")")));
    }
    return holders.isEmpty() ? Optional.empty() : Optional.of(new StepStart.Wait(Reason.GPU_IN_USE, what + " of "
        + run.node() + " waits until no pod holds the fenced GPU: " + String.join(", ", holders), false));
  }
}
