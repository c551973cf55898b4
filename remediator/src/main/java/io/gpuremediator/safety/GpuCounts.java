package io.gpuremediator.safety;

import io.gpuremediator.node.NodeInfo;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

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
    if (!count.isEmpty() && count.length() <= 4 && count.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return OptionalInt.of(Integer.parseInt(count));
    }
    return n.gpuCapacity() > 0 ? OptionalInt.of(n.gpuCapacity()) : OptionalInt.empty();
  };

  /** The node's GPUs, or empty when nothing says how many it has. */
  OptionalInt of(NodeInfo node);

  /**
   * A number that moves whenever what the counts read besides the node itself changes: counts of a node hold until it
   * or the node moves. Counts from the node alone never move it.
   */
  default long generation() {
    return 0;
  }

  /**
   * The GPUs the node publishes through DRA ({@code published}, by node name) first, else {@link #FROM_NODE}; what is
   * published never says when it changed, so every count reads it again.
   */
  static GpuCounts publishedFirst(Function<String, OptionalInt> published) {
    return publishedFirst(published, new AtomicLong()::incrementAndGet);
  }

  /** The same, {@code generation} moving whenever what is published changes. */
  static GpuCounts publishedFirst(Function<String, OptionalInt> published, LongSupplier generation) {
    return new GpuCounts() {
      @Override
      public OptionalInt of(NodeInfo n) {
        OptionalInt p = published.apply(n.name());
        return p.isPresent() && p.getAsInt() > 0 ? p : FROM_NODE.of(n);
      }

      @Override
      public long generation() {
        return generation.getAsLong();
      }
    };
  }
}
