package io.gpuremediator.safety;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Episode;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * A budget of nodes at once in some step ({@code safety.max_draining}, {@code preflight.max_concurrent}). The nodes
 * holding a slot are read from the ledgers in the cache (every instance's, whoever started them), plus the nodes this
 * instance admitted that the cache may not show yet. Admission adds first and counts after, so two nodes racing for
 * the last slot may both be refused but never both admitted; no lock is shared between nodes.
 */
public final class Slots {
  private final Map<String, Instant> admitted = new ConcurrentHashMap<>();
  private final Duration settle;
  private final Predicate<Episode> holds;
  private final String what;
  private final IntSupplier limit;

  /**
   * Slots of episodes that {@code holds} says hold one.
   *
   * @param settle how long an admission counts on its own before the cache must show it
   * @param what how a refusal names the holders and the setting: {@code "are draining (safety.max_draining)"}
   * @param limit how many nodes may hold a slot now (a percentage counts the selected nodes)
   */
  public Slots(Duration settle, Predicate<Episode> holds, String what, IntSupplier limit) {
    this.settle = settle;
    this.holds = holds;
    this.what = what;
    this.limit = limit;
  }

  /** Slots no node may take: for a loop without the pre-flight gate. */
  public static Slots none(String what) {
    return new Slots(Duration.ZERO, e -> false, what, () -> 0);
  }

  /** Takes a slot for the node, or says why none is free. */
  public Optional<String> take(String node, Instant now, Cluster cluster) {
    int allowed = limit.getAsInt();
    Set<String> holding = new HashSet<>();
    for (NodeInfo n : cluster.nodes()) {
      if (n.ledger().episodes().values().stream().anyMatch(holds)) {
        holding.add(n.name());
      }
    }
    if (holding.contains(node)) {
      return Optional.empty();
    }
    admitted.put(node, now);
    admitted.entrySet().removeIf(e -> e.getValue().plus(settle).isBefore(now));
    Set<String> counted = new HashSet<>(holding);
    counted.addAll(admitted.keySet());
    if (counted.size() > allowed) {
      admitted.remove(node);
      counted.remove(node);
      return Optional.of(counted.size() + " of " + allowed + " allowed nodes " + what);
    }
    return Optional.empty();
  }

  /** The node's step ended, failed, or was never written. */
  public void release(String node) {
    admitted.remove(node);
  }
}
