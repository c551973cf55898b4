package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.value.CountOrPercent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** A node's GPUs for the GPU limits: published through DRA first, then GFD's count, then capacity; else unknown. */
class GpuCountsTest {
  private static NodeInfo node(String name, Map<String, String> labels, int capacity) {
    return new NodeInfo(name, labels, Map.of(), List.of(), false, List.of(new NodeCondition("Ready", "True", "KubeletReady",
        "", null, null)), List.of(), "", "", NodeLedger.EMPTY, Optional.empty(), capacity);
  }

  @Test
  void aFourGpuTrayCountsFourNotEight() {
    assertThat(GpuCounts.FROM_NODE.of(node("gb200-tray-1", Map.of(), 4))).hasValue(4);
  }

  @Test
  void gpuFeatureDiscoverysPhysicalCountWinsOverCapacityThatCountsMigDevices() {
    assertThat(GpuCounts.FROM_NODE.of(node("a100-mig", Map.of("nvidia.com/gpu.count", "8"), 56))).hasValue(8);
  }

  @Test
  void whatADraDriverPublishesWinsAndANodeNothingCountsIsUnknownNeverEight() {
    GpuCounts counts = GpuCounts.publishedFirst(node -> node.equals("dra-node") ? OptionalInt.of(8) : OptionalInt.empty());
    assertThat(counts.of(node("dra-node", Map.of(), 0))).hasValue(8);
    assertThat(counts.of(node("bare", Map.of(), 0))).isEmpty();
  }

  @Test
  void aPercentageBudgetThatCannotCountANodeRefusesTheFenceAsGpuCountUnknown() {
    List<NodeInfo> fleet = List.of(node("dra-node", Map.of(), 0), node("bare", Map.of(), 0), node("plugin", Map.of(), 8));
    GpuBudget budget = new GpuBudget(Duration.ofSeconds(3), new CountOrPercent(50, true), 1,
        () -> fleet, GpuCounts.publishedFirst(n -> n.equals("dra-node") ? OptionalInt.of(8) : OptionalInt.empty()));
    assertThat(budget.take("dra-node", "GPU-1", Instant.EPOCH)).hasValueSatisfying(r -> {
      assertThat(r.reason()).isEqualTo(Reason.GPU_COUNT_UNKNOWN);
      assertThat(r.detail()).contains("the GPUs of 1 selected node(s) cannot be counted (bare:");
    });
    GpuBudget absolute = new GpuBudget(Duration.ofSeconds(3), new CountOrPercent(2, false), 1,
        () -> fleet, GpuCounts.publishedFirst(n -> n.equals("dra-node") ? OptionalInt.of(8) : OptionalInt.empty()));
    assertThat(absolute.take("dra-node", "GPU-1", Instant.EPOCH)).as("a count of GPUs needs no total").isEmpty();
  }
}
