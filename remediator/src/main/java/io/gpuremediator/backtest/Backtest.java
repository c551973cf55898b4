package io.gpuremediator.backtest;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.PlaybookSet;
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
    RemediationEngine engine = OfflineEngine.of(config, playbooks, cluster, clock, true);
    List<Decision> decisions = new ArrayList<>();
    for (Replay.Webhook w : webhooks) {
      clock.set(w.at());
      decisions.addAll(engine.handle(w.message()).decisions());
    }
    return decisions;
  }
}
