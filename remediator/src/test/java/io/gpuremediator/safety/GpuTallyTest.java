package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.NodeLedger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The GPU limits' counts, brought up to date with the nodes changed since, are the counts of the fleet counted whole:
 * after a fence, a node gone unavailable, one gone, one counted again; and what a DRA driver publishes, which changes
 * without its node, is read again when its generation moves.
 */
class GpuTallyTest {
  private static final Instant T = Instant.parse("2026-12-04T10:00:00Z");
  private final Map<String, NodeInfo> cached = new LinkedHashMap<>();
  private final List<String> changes = new ArrayList<>();
  private final Map<String, Integer> published = new LinkedHashMap<>();
  private final AtomicLong publishedGeneration = new AtomicLong();
  private final GpuCounts counts = GpuCounts.publishedFirst(n -> published.containsKey(n) ? OptionalInt.of(published.get(n))
      : OptionalInt.empty(), publishedGeneration::get);
  private final SelectedFleet fleet = new SelectedFleet() {
    @Override
    public List<NodeInfo> nodes() {
      return List.copyOf(cached.values());
    }

    @Override
    public long generation() {
      return changes.size();
    }

    @Override
    public Optional<List<String>> changedBetween(long from, long to) {
      return Optional.of(changes.subList((int) from, (int) to));
    }

    @Override
    public Optional<NodeInfo> node(String name) {
      return Optional.ofNullable(cached.get(name));
    }
  };

  @Test
  void countsKeptUpWithTheChangedNodesAreTheFleetCountedWhole() {
    for (int i = 0; i < 6; i++) {
      put(node("n" + i, i == 5 ? Map.of() : Map.of("nvidia.com/gpu.count", "8"), false, NodeLedger.EMPTY));
    }
    GpuTally tally = new GpuTally(fleet, counts);
    assertSameAsWhole(tally);
    put(node("n1", Map.of("nvidia.com/gpu.count", "8"), false, fenced("GPU-1", "GPU-2")));
    assertThat(assertSameAsWhole(tally).fenced()).containsExactlyInAnyOrder("n1/GPU-1", "n1/GPU-2");
    put(node("n2", Map.of("nvidia.com/gpu.count", "8"), true, NodeLedger.EMPTY));
    put(node("n5", Map.of(), true, NodeLedger.EMPTY));
    GpuTally.Count c = assertSameAsWhole(tally);
    assertThat(c.used()).as("2 fenced and the 8 GPUs of cordoned n2").isEqualTo(10);
    assertThat(c.uncountedUnavailable()).containsExactly("n5");
    cached.remove("n3");
    changes.add("n3");
    assertThat(assertSameAsWhole(tally).total()).as("n0, n1, n2 and n4: n3 gone, n5 uncounted").isEqualTo(32);
    published.put("n5", 4); // the driver publishes n5's GPUs: its node did not change
    assertThat(tally.count().uncounted()).as("not read again before the generation moves").containsExactly("n5");
    publishedGeneration.incrementAndGet();
    assertThat(assertSameAsWhole(tally).uncounted()).isEmpty();
  }

  private GpuTally.Count assertSameAsWhole(GpuTally tally) {
    GpuTally.Count kept = tally.count();
    GpuTally.Count whole = GpuTally.of(fleet.nodes(), counts);
    assertThat(kept.total()).isEqualTo(whole.total());
    assertThat(kept.used()).isEqualTo(whole.used());
    assertThat(kept.fenced()).isEqualTo(whole.fenced());
    assertThat(kept.uncounted()).containsExactlyInAnyOrderElementsOf(whole.uncounted());
    assertThat(kept.uncountedUnavailable()).containsExactlyInAnyOrderElementsOf(whole.uncountedUnavailable());
    return kept;
  }

  private void put(NodeInfo n) {
    cached.put(n.name(), n);
    changes.add(n.name());
  }

  private static NodeLedger fenced(String... uuids) {
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-dra-xid-reset", T, T);
    for (int i = 0; i < uuids.length; i++) {
      e = e.withHeld("gpu-dra-xid-reset/actions/" + i, new FencedGpu("gpu.nvidia.com", "n1", "gpu-" + i, uuids[i],
          "rule-" + i).held());
    }
    return NodeLedger.of(Map.of(), Map.of("fp1", e), List.of(), List.of());
  }

  private static NodeInfo node(String name, Map<String, String> labels, boolean cordoned, NodeLedger ledger) {
    return new NodeInfo(name, labels, Map.of(), List.of(), cordoned, List.of(new NodeCondition("Ready", "True",
        "KubeletReady", "", null, null)), List.of(), "", "", ledger, Optional.empty(), 0);
  }
}
