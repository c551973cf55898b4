package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.device.DeviceRef;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.state.FencedGpu;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a {@code gpu_reset} or {@code diagnose} after a {@code fence_gpu} acts on: the episode's fenced GPUs only, by
 * UUID, and only once no pod holds them (a ResourceClaim allocated one and reserved for a pod). Under {@code NoExecute}
 * the device taint eviction controller evicts those pods; under {@code NoSchedule} they finish on their own.
 */
final class FencedGpus {
  private FencedGpus() {}

  /** The fenced GPUs' UUIDs, comma-separated ({@code nvidia-smi -i} and {@code NVIDIA_VISIBLE_DEVICES} take them); empty: none. */
  static String uuids(LongStepRun<?> run) {
    return String.join(",", run.episode().fenced().stream().map(FencedGpu::uuid).toList());
  }

  /** A wait while a pod still holds a fenced GPU; empty when none does (or nothing is fenced). */
  static Optional<StepStart> waitWhileHeld(LongStepRun<?> run, String what) throws ClusterException {
    List<String> holders = new ArrayList<>();
    for (FencedGpu g : run.episode().fenced()) {
      for (String pod : run.ports().devices().holders(run.node(), new DeviceRef(g.driver(), g.pool(), g.device()))) {
        holders.add(pod + " holds GPU " + g.uuid());
      }
    }
    return holders.isEmpty() ? Optional.empty() : Optional.of(new StepStart.Wait(Reason.GPU_IN_USE, what + " of "
        + run.node() + " waits until no pod holds the fenced GPU: " + String.join(", ", holders), false));
  }
}
