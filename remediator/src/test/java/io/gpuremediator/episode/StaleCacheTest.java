package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Fleets;
import io.gpuremediator.testing.ForwardingCluster;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.value.CountOrPercent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The node cache can be a watch event behind the API server. A look that would act outside the node (evict a
 * pod, create a Job) first reads the node fresh: an episode a human or another instance already moved on is
 * left alone, and nothing is evicted from a node that is back in service.
 */
class StaleCacheTest {
  private static final PlaybookSet SHIPPED = PlaybookLoader.load(List.of(Path.of("../deploy/playbooks"))).set();
  private static final Instant T = Instant.parse("2026-11-22T10:00:00Z");

  @Test
  void aDrainTheCacheStillShowsButTheNodeNoLongerHasEvictsNothing() throws ClusterException {
    InMemoryCluster truth = Fleets.nodes(2);
    Progress draining = new Progress(Stage.DRAINING, T, false, false, 4,
        Optional.of(new Progress.Task("drain", 4, T, 1, "", Optional.empty())), "drain started");
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-hardware-xid", T, T, draining, Map.of(), Map.of());
    NodeInfo released = truth.node("gpu-node-0").orElseThrow();
    NodeInfo stale = new NodeInfo(released.name(), released.labels(), released.annotations(), released.taints(), true,
        released.conditions(), released.internalIps(), released.bootId(), "1", NodeLedger.of(Map.of(), Map.of("fp1", e), List.of()),
        Optional.empty());
    Cluster behind = new ForwardingCluster(truth) {
      @Override
      public Optional<NodeInfo> node(String name) {
        return name.equals("gpu-node-0") ? Optional.of(stale) : truth.node(name);
      }
    };
    InMemoryWorkloads workloads = new InMemoryWorkloads();
    workloads.pod("gpu-node-0", "trainer-0", false);
    MutableClock clock = new MutableClock(T.plusSeconds(30));
    EpisodeLoop loop = new EpisodeLoop(behind, workloads, () -> SHIPPED, truth::nodes,
        new LoopSettings(Duration.ofSeconds(1), Duration.ofSeconds(5), new CountOrPercent(2, false), "gpu-remediator"),
        () -> true, d -> { }, clock);
    loop.advance("gpu-node-0");
    assertThat(workloads.evictions).as("evictions from a node whose episode is over").isEmpty();
    assertThat(workloads.podsOn("gpu-node-0")).hasSize(1);
  }
}
