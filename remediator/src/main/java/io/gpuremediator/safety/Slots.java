package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Episode;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A budget of nodes at once in some step ({@code safety.max_draining}, {@code preflight.max_concurrent}). The nodes
 * holding a slot are read from the ledgers in the cache (every instance's, whoever started them), plus the nodes this
 * instance admitted that the cache may not show yet. Admission adds first and counts after, so two nodes racing for
 * the last slot may both be refused but never both admitted; no lock is shared between nodes.
 */
public final class Slots implements StepLimit {
  private final Map<String, Instant> admitted = new ConcurrentHashMap<>();
  private final Key key;
  private final Duration settle;
  private final Predicate<Episode> holds;
  private final IntSupplier limit;
  private final Supplier<? extends Collection<NodeInfo>> nodes;

  /**
   * How the slots are named: their usage row's name, the reason a refusal gives, and how a refusal and the usage row
   * name the holders and the setting ({@code "are draining (safety.max_draining)"}).
   */
  public record Key(String limit, Reason reason, String what) {}

  /**
   * Slots of episodes that {@code holds} says hold one.
   *
   * @param settle how long an admission counts on its own before the cache must show it
   * @param limit how many nodes may hold a slot now (a percentage counts the selected nodes)
   * @param nodes every node of the cache, whose ledgers say who holds a slot
   */
  public Slots(Key key, Duration settle, Predicate<Episode> holds, IntSupplier limit,
      Supplier<? extends Collection<NodeInfo>> nodes) {
    this.key = key;
    this.settle = settle;
    this.holds = holds;
    this.limit = limit;
    this.nodes = nodes;
  }

  /** Slots no node may take: for a loop without the pre-flight gate. Shows no usage. */
  public static Slots none(Key key) {
    return new Slots(key, Duration.ZERO, e -> false, () -> 0, List::of);
  }

  @Override
  public Optional<Refusal> take(String node, String unit, Instant now) {
    int allowed = limit.getAsInt();
    Set<String> holding = holding();
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
      return Optional.of(new Refusal(key.reason(), counted.size() + " of " + allowed + " allowed nodes "
          + key.what()));
    }
    return Optional.empty();
  }

  @Override
  public void release(String node) {
    admitted.remove(node);
  }

  @Override
  public List<LimitUsage> usage(Instant now) {
    int allowed = limit.getAsInt();
    Set<String> counted = holding();
    admitted.forEach((node, at) -> {
      if (!at.plus(settle).isBefore(now)) {
        counted.add(node);
      }
    });
    return allowed == 0 && counted.isEmpty() ? List.of()
        : List.of(new LimitUsage(key.limit(), counted.size(), allowed, "nodes that " + key.what()));
  }

  private Set<String> holding() {
    Set<String> holding = new HashSet<>();
    for (NodeInfo n : nodes.get()) {
      if (n.ledger().episodes().values().stream().anyMatch(holds)) {
        holding.add(n.name());
      }
    }
    return holding;
  }
}
