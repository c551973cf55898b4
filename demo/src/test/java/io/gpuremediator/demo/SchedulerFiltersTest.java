package io.gpuremediator.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerFiltersTest {

  @Test
  void aPodPendsWhileTheOnlyNodeOfItsPoolCarriesTheSpareTaintAndLandsOnceItIsRemoved() {
    Node cordoned = node("gpu-node-26", true, null);
    Node spare = node("gpu-node-27", false, "gpu-remediator.io/spare");
    Node elsewhere = new NodeBuilder(node("gpu-node-3", false, null)).editMetadata().withLabels(Map.of()).endMetadata().build();

    SchedulerFilters.Placement pending = SchedulerFilters.place(pod(null, 8), List.of(cordoned, spare, elsewhere), List.of());

    assertThat(pending.node()).isEmpty();
    assertThat(pending.why()).isEqualTo("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector,"
        + " 1 node(s) had untolerated taint {gpu-remediator.io/spare: spare}, 1 node(s) were unschedulable.");
    Node released = node("gpu-node-27", false, null);
    assertThat(SchedulerFilters.place(pod(null, 8), List.of(cordoned, released, elsewhere), List.of()).node())
        .hasValue("gpu-node-27");
  }

  @Test
  void aNodeWhoseGpusAreHeldByABoundPodDoesNotFitAnother() {
    Node free = node("gpu-node-27", false, null);

    SchedulerFilters.Placement placed = SchedulerFilters.place(pod(null, 8), List.of(free), List.of(pod("gpu-node-27", 1)));

    assertThat(placed.node()).isEmpty();
    assertThat(placed.why()).isEqualTo("0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
  }

  private static Node node(String name, boolean unschedulable, String taint) {
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).addToLabels("pool", "llm-finetune").endMetadata()
        .withNewSpec().withUnschedulable(unschedulable).endSpec().withNewStatus()
        .addToAllocatable("nvidia.com/gpu", new Quantity("8")).endStatus();
    if (taint != null) {
      b.editSpec().addNewTaint().withKey(taint).withValue("spare").withEffect("NoSchedule").endTaint().endSpec();
    }
    return b.build();
  }

  private static Pod pod(String node, int gpus) {
    return new PodBuilder().withNewMetadata().withName("w").endMetadata().withNewSpec().withNodeName(node)
        .addToNodeSelector("pool", "llm-finetune").addNewContainer().withName("trainer").withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus))).endResources().endContainer().endSpec()
        .withNewStatus().withPhase("Running").endStatus().build();
  }
}
