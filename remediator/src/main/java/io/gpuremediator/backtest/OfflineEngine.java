package io.gpuremediator.backtest;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.episode.EngineBuilder;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.FleetStore;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.safety.SafetyGate;
import io.gpuremediator.safety.SafetyListener;
import io.gpuremediator.safety.SelectedFleet;
import java.time.Clock;

/**
 * The engine {@code explain} and {@code backtest} decide with: the service's own, from the same config, as a global
 * dry-run over nodes held in memory, with the real fleet limits over those nodes and a fresh fleet state (no storm,
 * pause or recent start is known offline).
 */
public final class OfflineEngine {
  private OfflineEngine() {}

  /** An engine over {@code cluster}; {@code withLimits} false: no fleet to count (nodes assumed), no limit evaluated. */
  public static RemediationEngine of(RemediatorConfig config, PlaybookSet playbooks, Cluster cluster, Clock clock,
      boolean withLimits) {
    return EngineBuilder.of(() -> playbooks, cluster, new NodeResolver(config.nodeFrom(), config.nodeSelector(),
        cluster), clock).dryRun(true).gate(withLimits ? gate(config, cluster, clock) : SafetyGate.OPEN)
        .accept(config.acceptAlerts()).deferTo(config.deferTo()).ledger(config.ledger()).build();
  }

  private static SafetyGate gate(RemediatorConfig config, Cluster cluster, Clock clock) {
    FleetGate gate = new FleetGate(config.safety().limits(), new InMemoryFleetStore(),
        SelectedFleet.of(cluster, config.nodeSelector()), SafetyListener.NONE, clock);
    try {
      gate.load();
    } catch (FleetStore.FleetStoreException e) {
      throw new IllegalStateException("an in-memory store cannot fail", e);
    }
    return gate;
  }
}
