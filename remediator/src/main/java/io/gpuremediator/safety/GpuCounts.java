package io.gpuremediator.safety;

import io.gpuremediator.node.NodeInfo;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * How many GPUs a node has, for the GPU limits: where a DRA driver publishes them, the devices of its ResourceSlices (the
 * GPU Operator's DRA stack runs no GPU Feature Discovery and no device plugin); else GPU Feature Discovery's physical
 * {@code nvidia.com/gpu.count}; else the device plugin's {@code nvidia.com/gpu} capacity (a Neuron node's
 * {@code aws.amazon.com/neuron}: its accelerators count as its GPUs do). None of them: unknown, never a
 * guess (a four-GPU tray counted as eight would let more than the limit out).
 */
@FunctionalInterface
public interface GpuCounts {
  /** The label GPU Feature Discovery writes with the node's GPU count. */
  String COUNT_LABEL = "nvidia.com/gpu.count";

  /** Counts from the node alone: its GFD count label, else its capacity. */
  GpuCounts FROM_NODE = n -> {
    String count = n.labels().getOrDefault(COUNT_LABEL, "");
    if (count.matches("[0-9]{1,4}")) {
      return OptionalInt.of(Integer.parseInt(count));
    }
    return n.gpuCapacity() > 0 ? OptionalInt.of(n.gpuCapacity()) : OptionalInt.empty();
  };

  /** The node's GPUs, or empty when nothing says how many it has. */
  OptionalInt of(NodeInfo node);

  /** The GPUs the node publishes through DRA ({@code published}, by node name) first, else {@link #FROM_NODE}. */
  static GpuCounts publishedFirst(Function<String, OptionalInt> published) {
    return n -> {
      OptionalInt p = published.apply(n.name());
      return p.isPresent() && p.getAsInt() > 0 ? p : FROM_NODE.of(n);
    };
  }
}
