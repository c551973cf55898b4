package io.gpuremediator.episode;

import io.gpuremediator.action.PreflightAction;
import io.gpuremediator.device.Devices;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.safety.GpuBudget;
import io.gpuremediator.safety.GpuCounts;
import io.gpuremediator.safety.ReplaceBudget;
import io.gpuremediator.safety.Slots;
import io.gpuremediator.safety.StepLimits;
import io.gpuremediator.state.Stage;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The limits the loop's steps take a place in, built from its settings: the drain and pre-flight slots, the fleet's
 * replacement budget, and the GPU limits (counted from the devices DRA publishes first). An admission counts on its
 * own for three loop intervals, until the node cache must show it in the ledger.
 */
final class LoopLimits {
  private LoopLimits() {}

  /** The limits of a loop with these settings over the {@code selected} nodes. */
  static StepLimits of(LoopSettings settings, Cluster cluster, Supplier<List<NodeInfo>> selected, Devices devices,
      ReplaceBudget replacements) {
    Duration settle = settings.interval().multipliedBy(3);
    String driver = settings.fencing().dra().driver();
    return new StepLimits(
        new Slots(StepLimits.DRAINS, settle, e -> e.progress().stage() == Stage.DRAINING,
            () -> settings.maxDraining().of(selected.get().size()), cluster::nodes),
        new Slots(StepLimits.PREFLIGHTS, settle, PreflightAction::holdsSlot,
            () -> settings.preflight().map(p -> p.maxConcurrent().of(selected.get().size())).orElse(0), cluster::nodes),
        replacements, new GpuBudget(settle, settings.fencing().maxUnavailableGpus(),
            settings.fencing().maxFencedPerNode(), selected, GpuCounts.publishedFirst(n -> devices.publishedGpus(n, driver))));
  }
}
