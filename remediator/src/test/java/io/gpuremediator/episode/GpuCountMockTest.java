package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.device.Devices;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.DraShapes;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.DraObjects;
import io.gpuremediator.value.CountOrPercent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU limits count a node of the GPU Operator's DRA stack by what its DRA driver publishes, through the watch of the
 * ResourceSlices against the emulated API server: such a node has no GPU Feature Discovery label and no device plugin
 * capacity. A node nothing counts is never guessed: a percentage limit cannot be held, and the fence waits.
 */
class GpuCountMockTest {
  private static final String NODE = "gpu-node-0";
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  private void start() {
    h = new ClosedLoopHarness(dir, String.format(FenceGpuMockTest.PLAYBOOKS, "NoSchedule"),
        new ClosedLoopHarness.Fencing(DraScope.DEFAULT, new CountOrPercent(10, true), 1));
    withoutCapacity(NODE); // a DRA node: no device plugin
    DraObjects.slice(h.client, NODE, 8);
    await().atMost(Duration.ofSeconds(20)).until(() -> h.devices.publishedGpus(NODE, DraScope.NVIDIA_DRIVER).isPresent());
  }

  private void withoutCapacity(String node) {
    h.client.nodes().withName(node).editStatus(n -> {
      n.getStatus().setCapacity(Map.of());
      return n;
    });
  }

  @Test
  void aDraNodesGpusAreCountedFromItsResourceSlices() {
    start();
    h.fire(FenceGpuMockTest.xidOn(NODE, 3));
    assertThat(h.lookUntil(NODE, Stage.REPAIRING, 3).fenced()).as("counted, so fenced").hasSize(1);
    assertThat(h.decisions(Reason.GPU_COUNT_UNKNOWN)).isEmpty();
  }

  @Test
  void aSelectedNodeNothingCountsHoldsAPercentageFenceBackNamingIt() {
    start();
    withoutCapacity("gpu-node-1"); // no slice, no GFD label, no capacity: its GPUs cannot be read
    await().atMost(Duration.ofSeconds(20)).until(() -> h.node("gpu-node-1").gpuCapacity() == 0);
    Decision refused = h.fire(FenceGpuMockTest.xidOn(NODE, 3));
    h.look(NODE);
    h.look(NODE);
    assertThat(DraObjects.rules(h.client)).as("nothing fenced").isEmpty();
    assertThat(refused.reason()).as("refused when its episode is admitted: nothing written").isEqualTo(Reason.GPU_COUNT_UNKNOWN);
    assertThat(refused.detail()).contains("the GPUs of 1 selected node(s) cannot be counted (gpu-node-1:")
        .contains("never guessed");
    assertThat(h.node(NODE).ledger().episodes()).isEmpty();
  }
  @Test
  void theCountFollowsTheSlicesAsTheDriverRepublishesThem() {
    start();
    Devices devices = KubeApi.of(h.client).devices();
    assertThat(devices.publishedGpus(NODE, DraScope.NVIDIA_DRIVER)).hasValue(8);
    DraObjects.slice(h.client, NODE, 7); // a GPU fell off the bus: the driver publishes seven
    await().atMost(Duration.ofSeconds(20)).until(() -> devices.publishedGpus(NODE, DraScope.NVIDIA_DRIVER).orElse(0) == 7);
    h.client.genericKubernetesResources(DraShapes.SLICES).delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> devices.publishedGpus(NODE, DraScope.NVIDIA_DRIVER).isEmpty());
  }
}
