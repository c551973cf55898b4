package io.gpuremediator.node;

import java.util.Objects;

/**
 * {@code spares: {select, count, taint}}: hot spares, {@code count} healthy idle nodes of those {@code select} matches
 * held out of service under the {@code taint} (NoSchedule, value {@code spare}); a spare is released into service the
 * moment a node of the pool's selection is quarantined, and a repaired node returns as a spare while the pool is short.
 * A spare holds no claim of an episode: it counts toward no budget, and no budget counts it.
 */
public record SparePolicy(LabelSelector select, int count, String taintKey) {
  /** The taint a spare carries unless the config names another. */
  public static final String DEFAULT_TAINT = NodeKeys.DOMAIN + "spare";
  /** The most spares a pool may hold. */
  public static final int MAX_COUNT = 1000;

  /** Validates presence and the count. */
  public SparePolicy {
    Objects.requireNonNull(select, "select");
    Objects.requireNonNull(taintKey, "taintKey");
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException("a spare pool holds 1 to " + MAX_COUNT + " nodes, not " + count);
    }
  }

  /** The taint a spare carries. */
  public Taint taint() {
    return new Taint(taintKey, "spare", TaintEffect.NO_SCHEDULE);
  }

  /** Whether the node is one of the pool's: selected, and carrying the spare taint. */
  public boolean isSpare(NodeInfo n) {
    return selects(n) && n.taints().stream().anyMatch(t -> t.key().equals(taintKey));
  }

  /** Whether the pool's selection holds the node. */
  public boolean selects(NodeInfo n) {
    return select.matches(n.labels());
  }
}
