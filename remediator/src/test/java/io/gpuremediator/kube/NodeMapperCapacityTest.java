package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node's accelerator capacity as the GPU limits read it when no DRA driver publishes its GPUs: the device plugin's
 * {@code nvidia.com/gpu} (a GB200 tray's 4), else a Neuron node's {@code aws.amazon.com/neuron} (a trn1.2xlarge's 1, as
 * tests/real/nodes/eks-eksctl-managed-nodegroup-trn1-2xlarge.txt shows its capacity), else none.
 */
class NodeMapperCapacityTest {
  private static Node node(Map<String, String> capacity) {
    Map<String, Quantity> q = new HashMap<>();
    capacity.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new NodeBuilder().withNewMetadata().withName("n").endMetadata().withNewStatus().withCapacity(q).endStatus()
        .build();
  }

  @Test
  void aTraysGpusANeuronNodesDevicesOrNothing() {
    assertThat(NodeMapper.toInfo(node(Map.of("nvidia.com/gpu", "4", "cpu", "144")), LedgerSeal.offline()).gpuCapacity()).isEqualTo(4);
    assertThat(NodeMapper.toInfo(node(Map.of("aws.amazon.com/neuron", "1", "aws.amazon.com/neuroncore", "2")), LedgerSeal.offline())
        .gpuCapacity()).isEqualTo(1);
    assertThat(NodeMapper.toInfo(node(Map.of("cpu", "8")), LedgerSeal.offline()).gpuCapacity()).isZero();
  }
}
