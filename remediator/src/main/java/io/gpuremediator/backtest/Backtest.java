package io.gpuremediator.backtest;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.FleetStore;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.safety.SafetyListener;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays webhooks through the service's decision path as the service in dry-run decides them: the same engine, the
 * same fleet gate and limits over a copy of the nodes, the same playbooks, on a clock that reads each webhook's time.
 */
public final class Backtest {
  private Backtest() {}

  /** Every decision, in order. */
  public static List<Decision> run(RemediatorConfig config, PlaybookSet playbooks, List<NodeInfo> nodes,
      List<Replay.Webhook> webhooks) {
    if (webhooks.isEmpty()) {
      return List.of();
    }
    ReplayClock clock = new ReplayClock(webhooks.get(0).at());
    InMemoryCluster cluster = new InMemoryCluster(nodes);
    FleetGate gate = new FleetGate(SafetyLimits.from(config), new InMemoryFleetStore(),
        () -> cluster.nodes().stream().filter(n -> config.nodeSelector().matches(n.labels())).toList(),
        cluster::generation, SafetyListener.NONE, clock);
    try {
      gate.load();
    } catch (FleetStore.FleetStoreException e) {
      throw new IllegalStateException("an in-memory store cannot fail", e);
    }
    RemediationEngine engine = new RemediationEngine(() -> playbooks, cluster,
        new NodeResolver(config.nodeFrom(), config.nodeSelector(), cluster), true, gate, d -> { }, clock,
        config.acceptAlerts());
    List<Decision> decisions = new ArrayList<>();
    for (Replay.Webhook w : webhooks) {
      clock.set(w.at());
      decisions.addAll(engine.handle(w.message()).decisions());
    }
    return decisions;
  }
}
