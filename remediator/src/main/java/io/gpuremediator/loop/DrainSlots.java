package io.gpuremediator.loop;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code safety.max_draining} budget: the nodes draining now, as the cache shows them plus the ones
 * this instance admitted since. Taking a slot adds first and checks after, so two nodes racing for the
 * last slot may both be refused but never both admitted; no lock is shared between nodes.
 */
final class DrainSlots {
  private final Map<String, Instant> taken = new ConcurrentHashMap<>();

  /** Takes a slot for the node, or says why none is free. */
  Optional<String> take(String node, int limit, Instant now, Cluster cluster) {
    for (NodeInfo n : cluster.nodes()) {
      if (draining(n)) {
        taken.putIfAbsent(n.name(), now);
      }
    }
    if (taken.containsKey(node)) {
      return Optional.empty();
    }
    taken.put(node, now);
    if (taken.size() > limit) {
      taken.remove(node);
      return Optional.of((taken.size()) + " of " + limit + " allowed nodes are draining (safety.max_draining)");
    }
    return Optional.empty();
  }

  void release(String node) {
    taken.remove(node);
  }

  /**
   * Drops slots of nodes that no longer drain in the cache and have no look under way, once the cache has had
   * {@code settle} to show a write this instance just made.
   */
  void forget(Cluster cluster, Set<String> inFlight, Instant now, java.time.Duration settle) {
    for (Map.Entry<String, Instant> slot : taken.entrySet()) {
      String node = slot.getKey();
      if (slot.getValue().plus(settle).isBefore(now) && !inFlight.contains(node)
          && cluster.node(node).map(n -> !draining(n)).orElse(true)) {
        taken.remove(node);
      }
    }
  }

  private static boolean draining(NodeInfo n) {
    return n.ledger().episodes().values().stream().anyMatch(e -> e.progress().stage() == Stage.DRAINING);
  }
}
