package io.gpuremediator.action;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Stage;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code safety.max_draining} budget. The nodes draining are read from the ledgers in the cache (every
 * instance's drains, whoever started them), plus the drains this instance admitted that the cache may not
 * show yet. Admission adds first and counts after, so two nodes racing for the last slot may both be
 * refused but never both admitted; no lock is shared between nodes.
 */
public final class DrainSlots {
  private final Map<String, Instant> admitted = new ConcurrentHashMap<>();
  private final Duration settle;

  /** {@code settle}: how long an admission counts on its own before the cache must show it. */
  public DrainSlots(Duration settle) {
    this.settle = settle;
  }

  /** Takes a slot for the node, or says why none is free. */
  Optional<String> take(String node, int limit, Instant now, Cluster cluster) {
    Set<String> draining = new HashSet<>();
    for (NodeInfo n : cluster.nodes()) {
      if (draining(n)) {
        draining.add(n.name());
      }
    }
    if (draining.contains(node)) {
      return Optional.empty();
    }
    admitted.put(node, now);
    admitted.entrySet().removeIf(e -> e.getValue().plus(settle).isBefore(now));
    Set<String> counted = new HashSet<>(draining);
    counted.addAll(admitted.keySet());
    if (counted.size() > limit) {
      admitted.remove(node);
      counted.remove(node);
      return Optional.of(counted.size() + " of " + limit + " allowed nodes are draining (safety.max_draining)");
    }
    return Optional.empty();
  }

  /** The node's drain ended, failed, or was never written. */
  public void release(String node) {
    admitted.remove(node);
  }

  private static boolean draining(NodeInfo n) {
    return n.ledger().episodes().values().stream().anyMatch(e -> e.progress().stage() == Stage.DRAINING);
  }
}
