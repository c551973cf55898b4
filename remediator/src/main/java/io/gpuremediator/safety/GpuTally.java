package io.gpuremediator.safety;

import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The selected nodes' GPUs as the GPU limits count them: how many, how many are out (fenced, or on an unavailable node),
 * the fenced ones of nodes in service, and the nodes whose GPUs cannot be counted. Brought up to date with the nodes
 * changed since the last count, as {@link FleetCounts} is; counted whole the first time, whenever the fleet cannot say
 * what changed, and whenever what the counts read besides the node (a DRA driver's ResourceSlices) moved. A count of
 * 20,000 nodes on every fence cost the fence's admission and its start a scan of the fleet each.
 */
final class GpuTally {
  private final SelectedFleet fleet;
  private final GpuCounts counts;
  private final Map<String, Share> byName = new HashMap<>();
  private final Set<String> fenced = new LinkedHashSet<>();
  private final Set<String> uncounted = new LinkedHashSet<>();
  private final Set<String> uncountedUnavailable = new LinkedHashSet<>();
  private int total;
  private int used;
  private long nodesAt = -1;
  private long countsAt;

  /** What one node adds: its GPUs (-1 when they cannot be counted), whether it is unavailable, its fenced GPUs. */
  private record Share(int gpus, boolean unavailable, Set<String> fenced) {}

  /** The counts as of one moment; the collections are copies. */
  record Count(int total, int used, Set<String> fenced, List<String> uncounted, List<String> uncountedUnavailable) {}

  GpuTally(SelectedFleet fleet, GpuCounts counts) {
    this.fleet = fleet;
    this.counts = counts;
  }

  /** The counts now. */
  synchronized Count count() {
    long nodes = fleet.generation();
    long published = counts.generation();
    if (nodesAt < 0 || published != countsAt) {
      countWhole(fleet.nodes());
    } else if (nodes != nodesAt) {
      fleet.changedBetween(nodesAt, nodes).ifPresentOrElse(
          changed -> new LinkedHashSet<>(changed).forEach(name -> recount(name)),
          () -> countWhole(fleet.nodes()));
    }
    nodesAt = nodes;
    countsAt = published;
    return new Count(total, used, Set.copyOf(fenced), List.copyOf(uncounted), List.copyOf(uncountedUnavailable));
  }

  /** Counts a list of nodes whole, once: for the page's usage row, which reads the fleet afresh. */
  static Count of(List<NodeInfo> nodes, GpuCounts counts) {
    GpuTally t = new GpuTally(SelectedFleet.countedWhole(() -> nodes, () -> 0), counts);
    return t.count();
  }

  private void countWhole(List<NodeInfo> nodes) {
    byName.clear();
    fenced.clear();
    uncounted.clear();
    uncountedUnavailable.clear();
    total = 0;
    used = 0;
    nodes.forEach(this::add);
  }

  private void recount(String name) {
    Share before = byName.remove(name);
    if (before != null) {
      total -= Math.max(0, before.gpus());
      used -= before.unavailable() ? Math.max(0, before.gpus()) : before.fenced().size();
      fenced.removeAll(before.fenced());
      uncounted.remove(name);
      uncountedUnavailable.remove(name);
    }
    fleet.node(name).ifPresent(this::add);
  }

  private void add(NodeInfo n) {
    OptionalInt gpus = counts.of(n);
    boolean unavailable = Unavailable.is(n);
    Set<String> own = new LinkedHashSet<>();
    if (!unavailable) {
      for (Episode e : n.ledger().episodes().values()) {
        for (FencedGpu g : e.fenced()) {
          own.add(n.name() + "/" + g.uuid());
        }
      }
    }
    Share share = new Share(gpus.orElse(-1), unavailable, own.isEmpty() ? Set.of() : own);
    byName.put(n.name(), share);
    total += gpus.orElse(0);
    used += unavailable ? gpus.orElse(0) : own.size();
    fenced.addAll(own);
    if (gpus.isEmpty()) {
      uncounted.add(n.name());
      if (unavailable) {
        uncountedUnavailable.add(n.name());
      }
    }
  }
}
