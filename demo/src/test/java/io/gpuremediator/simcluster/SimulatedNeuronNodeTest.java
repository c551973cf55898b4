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
 * The demo's Trainium nodes carry the labels an EKS managed node group's node carries (tests/real/nodes, the recorded
 * node's label keys) and none it lacks, and the service's default node_selector selects them as it would a real one.
 */
class SimulatedNeuronNodeTest {
  private static final Pattern LABEL = Pattern.compile("^(?:Labels:)?\\s*([A-Za-z0-9./_-]+)=(\\S*)\\s*$");

  @Test
  void aSimulatedTrainiumNodeIsLabelledAsARealManagedNodeGroupsNodeIs() throws Exception {
    Set<String> real = new TreeSet<>();
    for (String line : Files.readAllLines(Path.of("../tests/real/nodes/eks-managed-nodegroup-p3.txt"))) {
      var m = LABEL.matcher(line);
      if (m.find()) {
        real.add(m.group(1));
      }
    }
    Map<String, String> labels = SimCluster.node(new SimNode("trn-node-0", SimNode.Kind.TRAINIUM, "10.1.0.1")).getMetadata().getLabels();
    assertThat(real).contains("node.kubernetes.io/instance-type", "eks.amazonaws.com/nodegroup");
    assertThat(labels.keySet()).allSatisfy(k -> assertThat(real).contains(k)).doesNotContain("aws.amazon.com/neuron.present");
    assertThat(labels).containsEntry("node.kubernetes.io/instance-type", "trn1.32xlarge");
    assertThat(LabelSelector.gpuNodes().matches(labels)).isTrue();
  }
}
