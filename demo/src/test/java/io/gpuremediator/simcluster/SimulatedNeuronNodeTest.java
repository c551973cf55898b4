package io.gpuremediator.simcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.LabelSelector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The demo's Trainium nodes carry the labels a real Trainium node of an EKS managed node group carries (tests/real/nodes,
 * a trn1.2xlarge eksctl made: its label keys and its Neuron resource) and none it lacks, and the service's default
 * node_selector selects them as it would the real one.
 */
class SimulatedNeuronNodeTest {
  private static final Pattern LABEL = Pattern.compile("^(?:Labels:)?\\s*([A-Za-z0-9./_-]+)=(\\S*)\\s*$");

  @Test
  void aSimulatedTrainiumNodeIsLabelledAsARealManagedNodeGroupsNodeIs() throws Exception {
    Set<String> real = new TreeSet<>();
    for (String line : Files.readAllLines(Path.of("../tests/real/nodes/eks-eksctl-managed-nodegroup-trn1-2xlarge.txt"))) {
      var m = LABEL.matcher(line);
      if (m.find()) {
        real.add(m.group(1));
      }
    }
    Map<String, String> labels = SimCluster.node(new SimNode("trn-node-0", SimNode.Kind.TRAINIUM, "10.1.0.1")).getMetadata().getLabels();
    assertThat(real).contains("node.kubernetes.io/instance-type", "eks.amazonaws.com/nodegroup");
    assertThat(labels.keySet()).allSatisfy(k -> assertThat(real).contains(k)).doesNotContain("aws.amazon.com/neuron.present");
    assertThat(labels).containsEntry("node.kubernetes.io/instance-type", "trn1.32xlarge");
    assertThat(SimCluster.node(new SimNode("trn-node-0", SimNode.Kind.TRAINIUM, "10.1.0.1")).getStatus().getCapacity())
        .containsKey("aws.amazon.com/neuron");
    assertThat(LabelSelector.gpuNodes().matches(labels)).isTrue();
  }
}
