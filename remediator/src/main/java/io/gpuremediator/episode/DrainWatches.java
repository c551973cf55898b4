package io.gpuremediator.episode;

import io.gpuremediator.action.DrainAction;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.workload.Workloads;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod watch on each node being drained, so a drain hears its last pod leave when it leaves rather than at the loop's
 * next tick. One watch per draining node (bounded by {@code safety.max_draining}), as each kubelet watches its own pods.
 */
final class DrainWatches implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(DrainWatches.class);

  private final Workloads workloads;
  private final Consumer<String> kick;
  private final Map<String, AutoCloseable> open = new ConcurrentHashMap<>();

  /**
   * @param kick asks for a look at the node (a pod of it went)
   */
  DrainWatches(Workloads workloads, Consumer<String> kick) {
    this.workloads = workloads;
    this.kick = kick;
  }

  /** Opens the node's watch when one of its episodes is draining, closes it otherwise. */
  void update(String node, Optional<NodeInfo> now) {
    boolean draining = now.map(n -> n.ledger().episodes().values().stream()
        .anyMatch(DrainAction::draining)).orElse(false);
    if (!draining) {
      close(node, open.remove(node));
      return;
    }
    boolean[] opened = {false};
    open.computeIfAbsent(node, k -> {
      opened[0] = true;
      return workloads.watchPodsOn(k, () -> kick.accept(k));
    });
    if (opened[0]) {
      kick.accept(node); // a pod that left before the watch was up is seen by one more look
    }
  }

  /** Closes the watches of nodes no longer in {@code nodes}. */
  void retain(Set<String> nodes) {
    for (String node : Set.copyOf(open.keySet())) {
      if (!nodes.contains(node)) {
        close(node, open.remove(node));
      }
    }
  }

  private static void close(String node, AutoCloseable watch) {
    if (watch == null) {
      return;
    }
    try {
      watch.close();
    } catch (Exception e) {
      LOGGER.warn("pod watch of node {} did not stop cleanly: {}", node, e.toString());
    }
  }

  @Override
  public void close() {
    retain(Set.of());
  }
}
