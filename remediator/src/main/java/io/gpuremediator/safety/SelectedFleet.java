package io.gpuremediator.safety;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeInfo;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The nodes the budgets count, those {@code node_selector} selects, as the gate reads them: every one, or only those
 * changed since it last counted. Counting 20,000 nodes again on each admission that follows a change costs
 * milliseconds under the gate's lock; the nodes changed since are a few.
 */
public interface SelectedFleet {
  /** Every selected node. */
  List<NodeInfo> nodes();

  /** A number that moves whenever a cached node changes: counts over the fleet hold until it moves. */
  long generation();

  /**
   * The nodes changed after generation {@code from} up to {@code to} (one may no longer be selected, or be gone); empty
   * when not known: then every node is counted again.
   */
  Optional<List<String>> changedBetween(long from, long to);

  /** The node of this name, if it is cached and selected. */
  Optional<NodeInfo> node(String name);

  /** How many GPUs each node has, for the GPU limits' usage; by default from the node alone. */
  default GpuCounts gpuCounts() {
    return GpuCounts.FROM_NODE;
  }

  /** The cluster's cached nodes that {@code selector} selects, their GPUs counted from the node alone. */
  static SelectedFleet of(Cluster cluster, LabelSelector selector) {
    return of(cluster, selector, GpuCounts.FROM_NODE);
  }

  /** The cluster's cached nodes that {@code selector} selects, their GPUs counted by {@code counts}. */
  static SelectedFleet of(Cluster cluster, LabelSelector selector, GpuCounts counts) {
    return new SelectedFleet() {
      @Override
      public GpuCounts gpuCounts() {
        return counts;
      }

      @Override
      public List<NodeInfo> nodes() {
        return cluster.nodes().stream().filter(n -> selector.matches(n.labels())).toList();
      }

      @Override
      public long generation() {
        return cluster.generation();
      }

      @Override
      public Optional<List<String>> changedBetween(long from, long to) {
        return cluster.changedBetween(from, to);
      }

      @Override
      public Optional<NodeInfo> node(String name) {
        return cluster.node(name).filter(n -> selector.matches(n.labels()));
      }
    };
  }

  /** Nodes that say nothing of what changed: every node is counted again whenever {@code generation} moves. */
  static SelectedFleet countedWhole(Supplier<List<NodeInfo>> nodes, LongSupplier generation) {
    return new SelectedFleet() {
      @Override
      public List<NodeInfo> nodes() {
        return nodes.get();
      }

      @Override
      public long generation() {
        return generation.getAsLong();
      }

      @Override
      public Optional<List<String>> changedBetween(long from, long to) {
        return Optional.empty();
      }

      @Override
      public Optional<NodeInfo> node(String name) {
        return nodes.get().stream().filter(n -> n.name().equals(name)).findFirst();
      }
    };
  }
}
