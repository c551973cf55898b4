package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.action.StepPorts;
import io.gpuremediator.device.Devices;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.safety.StepLimits;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.NodeLedger;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** A deletion of one of our DeviceTaintRules, told by the watch of our rules, looks at the node whose episode holds it. */
class HeldObjectWatchesTest {
  @Test
  @SuppressWarnings("unchecked")
  void aDeletedRuleLooksAtTheNodeWhoseEpisodeFencedWithIt() throws Exception {
    Instant t = Instant.parse("2026-11-22T10:00:00Z");
    Episode fenced = new Episode("fp1", "GpuXidHardwareError", "gpu-dra-xid-reset", t, t).withHeld(
        "gpu-dra-xid-reset/actions/1", new FencedGpu("gpu.nvidia.com", "gpu-node-1", "gpu-3", "GPU-1", "rule-1").held());
    InMemoryCluster cluster = new InMemoryCluster(List.of(NodeInfo.named("gpu-node-0", Map.of()), withEpisode(
        NodeInfo.named("gpu-node-1", Map.of()), fenced)));
    AtomicReference<Consumer<String>> told = new AtomicReference<>();
    Devices devices = (Devices) Proxy.newProxyInstance(Devices.class.getClassLoader(),
        new Class<?>[] {Devices.class}, (proxy, method, args) -> {
          if (method.getName().equals("watchRules")) {
            told.set((Consumer<String>) args[0]);
            return (AutoCloseable) () -> { };
          }
          throw new UnsupportedOperationException(method.getName());
        });
    StepPorts ports = new StepPorts(cluster, new InMemoryWorkloads(), devices, OutboundPorts.NONE,
        StepLimits.onlyReplacing(ReplaceLimit.NONE), Duration.ofSeconds(5), "gpu-remediator",
        Set.of(), DraScope.DEFAULT);
    List<String> looked = new ArrayList<>();
    try (HeldObjectWatches watches = HeldObjectWatches.start(ports, cluster, looked::add, () -> { })) {
      told.get().accept("rule-2");
      assertThat(looked).as("a rule no episode holds: no look").isEmpty();
      told.get().accept("rule-1");
      assertThat(looked).containsExactly("gpu-node-1");
    }
  }

  private static NodeInfo withEpisode(NodeInfo n, Episode e) {
    return new NodeInfo(n.name(), n.labels(), n.annotations(), n.taints(), n.unschedulable(), n.conditions(),
        n.internalIps(), n.bootId(), n.resourceVersion(), NodeLedger.EMPTY.withEpisode(e), Optional.empty());
  }
}
