package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.value.CountOrPercent;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Counting only the nodes changed since the last count gives what counting the whole fleet again gives. */
class FleetCountsTest {
  private static final LabelSelector GPU = LabelSelector.parse("nvidia.com/gpu.present=true").value();
  private static final List<DomainBudget> RACKS = List.of(new DomainBudget("rack", new CountOrPercent(1, false)));

  private final InMemoryCluster cluster = new InMemoryCluster(IntStream.range(0, 40).mapToObj(i -> NodeInfo.named("n" + i,
      Map.of("nvidia.com/gpu.present", "true", "rack", "r" + i % 4))).toList());
  private final Random random = new Random(20261127);

  @Test
  void cordonsRackMovesAndNodesLeavingTheSelectionAreCountedAsAWholeCountWould() throws ClusterException {
    FleetCounts kept = new FleetCounts(SelectedFleet.of(cluster, GPU), RACKS);
    kept.update();
    for (int round = 0; round < 50; round++) {
      for (int change = random.nextInt(6); change >= 0; change--) {
        changeOne();
      }
      kept.update();
      assertSameAsAWholeCount(kept);
    }
  }

  @Test
  void aCountFurtherBehindThanTheChangeLogCountsEveryNode() throws ClusterException {
    FleetCounts kept = new FleetCounts(SelectedFleet.of(cluster, GPU), RACKS);
    kept.update();
    for (int change = 0; change < 3000; change++) {
      changeOne();
    }
    kept.update();
    assertSameAsAWholeCount(kept);
  }

  private void assertSameAsAWholeCount(FleetCounts kept) {
    FleetCounts whole = new FleetCounts(SelectedFleet.countedWhole(
        () -> cluster.nodes().stream().filter(n -> GPU.matches(n.labels())).toList(), cluster::generation), RACKS);
    whole.update();
    assertThat(kept.selected()).isEqualTo(whole.selected());
    assertThat(kept.unavailable()).isEqualTo(whole.unavailable());
    assertThat(asSets(kept.domains())).isEqualTo(asSets(whole.domains()));
  }

  /** One change to a random node: cordoned or uncordoned, moved to another rack, or out of or back into the selection. */
  private void changeOne() throws ClusterException {
    String name = "n" + random.nextInt(40);
    int what = random.nextInt(3);
    cluster.modifyNode(name, n -> {
      Map<String, String> labels = new HashMap<>(n.labels());
      boolean unschedulable = n.unschedulable();
      switch (what) {
        case 0 -> unschedulable = !unschedulable;
        case 1 -> labels.put("rack", "r" + random.nextInt(5));
        default -> labels.put("nvidia.com/gpu.present", "true".equals(labels.get("nvidia.com/gpu.present")) ? "false" : "true");
      }
      return new Cluster.Edited<>(new NodeInfo(n.name(), labels, n.annotations(), n.taints(), unschedulable, n.conditions(),
          n.internalIps(), n.bootId(), n.resourceVersion(), n.ledger(), n.ledgerFault()), null);
    });
  }

  private static Map<String, Map<String, Set<String>>> asSets(Map<String, Map<String, List<String>>> domains) {
    Map<String, Map<String, Set<String>>> out = new TreeMap<>();
    domains.forEach((label, values) -> values.forEach((value, nodes) ->
        out.computeIfAbsent(label, l -> new TreeMap<>()).put(value, new HashSet<>(nodes))));
    domains.keySet().forEach(label -> out.computeIfAbsent(label, l -> new TreeMap<>()));
    return out;
  }
}
