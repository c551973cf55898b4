package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.value.CountOrPercent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The GPU limits a {@code fence_gpu} takes a place in: {@code safety.max_unavailable_gpus} (int or % of the selected
 * nodes' GPUs) bounds the GPUs fenced plus the GPUs of unavailable nodes, fleet-wide; {@code safety.max_fenced_per_node}
 * bounds the GPUs fenced on one node. Fenced GPUs are read from the ledgers in the cache (every instance's), plus the
 * places this instance gave that the cache may not show yet; adding first and counting after, two fences racing for
 * the last place may both be refused but never both admitted. A node's GPUs are as {@link GpuCounts} reads them; a node
 * whose count cannot be read is never guessed: a fence that needs it (every selected node's, for a percentage; an
 * unavailable node's, always) waits, {@code gpu_count_unknown}.
 */
public final class GpuBudget implements StepLimit {
  /** The label GPU Feature Discovery writes with the node's GPU count. */
  public static final String COUNT_LABEL = GpuCounts.COUNT_LABEL;
  /** How many nodes a refusal names of those it cannot count. */
  private static final int NAMED = 3;

  private final Map<String, Instant> admitted = new ConcurrentHashMap<>();
  private final Duration settle;
  private final CountOrPercent maxUnavailableGpus;
  private final int maxFencedPerNode;
  private final GpuTally tally;

  /**
   * @param settle how long a place counts on its own before the cache must show the fence
   * @param selected the nodes of node_selector (whose GPUs a percentage counts), their GPUs counted by its
   *     {@link SelectedFleet#gpuCounts}, recounted where they changed
   */
  public GpuBudget(Duration settle, CountOrPercent maxUnavailableGpus, int maxFencedPerNode, SelectedFleet selected) {
    this(settle, maxUnavailableGpus, maxFencedPerNode, new GpuTally(selected, selected.gpuCounts()));
  }

  /** The same over nodes that say nothing of what changed: every count counts them all. */
  public GpuBudget(Duration settle, CountOrPercent maxUnavailableGpus, int maxFencedPerNode, Supplier<List<NodeInfo>> selected,
      GpuCounts counts) {
    this(settle, maxUnavailableGpus, maxFencedPerNode, new GpuTally(SelectedFleet.countedWhole(selected,
        new AtomicLong()::incrementAndGet), counts));
  }

  private GpuBudget(Duration settle, CountOrPercent maxUnavailableGpus, int maxFencedPerNode, GpuTally tally) {
    this.settle = settle;
    this.maxUnavailableGpus = maxUnavailableGpus;
    this.maxFencedPerNode = maxFencedPerNode;
    this.tally = tally;
  }

  /** The same, counting each node's GPUs from the node alone ({@link GpuCounts#FROM_NODE}). */
  public GpuBudget(Duration settle, CountOrPercent maxUnavailableGpus, int maxFencedPerNode, Supplier<List<NodeInfo>> selected) {
    this(settle, maxUnavailableGpus, maxFencedPerNode, selected, GpuCounts.FROM_NODE);
  }

  /** No GPU may be fenced: for a loop with nothing to fence. */
  public static GpuBudget none() {
    return new GpuBudget(Duration.ZERO, new CountOrPercent(0, false), 0, List::of);
  }

  /**
   * Takes a place for the GPU ({@code gpu}: its UUID, or its index) on the node, or says why not: {@code fenced_per_node}
   * when the node already has {@code max_fenced_per_node} GPUs fenced (by other episodes), {@code gpu_budget_exhausted}
   * when the fleet has no GPU to spare. A GPU already fenced, or already given a place, takes none again.
   */
  @Override
  public Optional<Refusal> take(String node, String gpu, Instant now) {
    return place(node, gpu, now, true);
  }

  /** What {@link #take} would answer now, no place taken (a dry-run). */
  public Optional<Refusal> check(String node, String gpu, Instant now) {
    return place(node, gpu, now, false);
  }

  private synchronized Optional<Refusal> place(String node, String gpu, Instant now, boolean keep) {
    String key = node + "/" + gpu;
    admitted.entrySet().removeIf(e -> e.getValue().plus(settle).isBefore(now));
    GpuTally.Count c = tally.count();
    if (c.fenced().contains(key)) {
      return Optional.empty();
    }
    List<String> unknown = maxUnavailableGpus.percent() ? c.uncounted() : c.uncountedUnavailable();
    if (!unknown.isEmpty()) {
      return Optional.of(new Refusal(Reason.GPU_COUNT_UNKNOWN, "the GPUs of " + unknown.size() + " selected node(s) cannot"
          + " be counted (" + String.join(", ", unknown.subList(0, Math.min(NAMED, unknown.size())))
          + (unknown.size() > NAMED ? ", ..." : "") + ": no ResourceSlice of the DRA driver, no " + COUNT_LABEL
          + " label, no nvidia.com/gpu capacity), so safety.max_unavailable_gpus " + maxUnavailableGpus
          + " cannot be held; never guessed"));
    }
    if (admitted.containsKey(key)) {
      return Optional.empty();
    }
    admitted.put(key, now);
    int used = c.used();
    int onNode = (int) c.fenced().stream().filter(k -> k.startsWith(node + "/")).count();
    for (String other : admitted.keySet()) {
      if (!other.equals(key) && !c.fenced().contains(other)) {
        used++;
        onNode += other.startsWith(node + "/") ? 1 : 0;
      }
    }
    if (!keep) {
      admitted.remove(key);
    }
    if (onNode + 1 > maxFencedPerNode) {
      admitted.remove(key);
      return Optional.of(new Refusal(Reason.FENCED_PER_NODE, onNode + " GPU(s) of " + node + " are fenced already;"
          + " safety.max_fenced_per_node allows " + maxFencedPerNode));
    }
    int allowed = maxUnavailableGpus.of(c.total());
    if (used + 1 > allowed) {
      admitted.remove(key);
      return Optional.of(new Refusal(Reason.GPU_BUDGET_EXHAUSTED, used + " of " + c.total() + " GPUs of the selected nodes"
          + " are fenced or on unavailable nodes; safety.max_unavailable_gpus " + maxUnavailableGpus + " allows " + allowed));
    }
    return Optional.empty();
  }

  @Override
  public List<LimitUsage> usage(Instant now) {
    return List.of(usage(tally.count(), maxUnavailableGpus));
  }

  /** What {@code safety.max_unavailable_gpus} has used of what it allows, for the page, the API and the metrics. */
  static LimitUsage usage(List<NodeInfo> selected, CountOrPercent maxUnavailableGpus, GpuCounts counts) {
    return usage(GpuTally.of(selected, counts), maxUnavailableGpus);
  }

  private static LimitUsage usage(GpuTally.Count c, CountOrPercent maxUnavailableGpus) {
    return new LimitUsage("max_unavailable_gpus", c.used(), maxUnavailableGpus.of(c.total()), "of " + c.total()
        + " GPUs of the selected nodes, fenced or on unavailable nodes (" + maxUnavailableGpus + ")"
        + (c.uncounted().isEmpty() ? "" : "; " + c.uncounted().size() + " node(s) whose GPUs cannot be counted"
            + " (gpu_count_unknown)"));
  }

  /** The node's fence was written (the cache shows it), failed, or was never written: its places are given back. */
  @Override
  public void release(String node) {
    admitted.keySet().removeIf(k -> k.startsWith(node + "/"));
  }

}
