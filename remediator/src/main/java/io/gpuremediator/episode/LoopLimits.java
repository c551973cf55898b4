package io.gpuremediator.episode;

import io.gpuremediator.action.DrainAction;
import io.gpuremediator.action.PreflightAction;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.safety.Slots;
import io.gpuremediator.safety.StepLimits;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The limits the loop's steps take a place in: its drain and pre-flight slots, built from its settings, and the
 * fleet's replacement limit and GPU limits, built by the safety gate. An admission counts on its own for three loop
 * intervals, until the node cache must show it in the ledger.
 */
final class LoopLimits {
  private LoopLimits() {}

  /** The limits of a loop with these settings over the {@code selected} nodes of the cluster. */
  static StepLimits of(LoopSettings settings, Cluster cluster, Supplier<List<NodeInfo>> selected,
      StepLimits.Fleet fleet) {
    Duration settle = LoopSettings.settle(settings.interval());
    return new StepLimits(
        new Slots(StepLimits.DRAINS, settle, DrainAction::draining,
            () -> settings.maxDraining().of(selected.get().size()), cluster::nodes),
        new Slots(StepLimits.PREFLIGHTS, settle, PreflightAction::holdsSlot,
            () -> settings.preflight().map(p -> p.maxConcurrent().of(selected.get().size())).orElse(0), cluster::nodes),
        fleet);
  }
}
