package io.gpuremediator.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.yaml.MapReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The default {@code node_selector} against the labels of real GPU nodes (tests/real/nodes/, sources in
 * tests/real/SOURCES.md). The old default, GPU Feature Discovery's label alone, selected none of GKE's, AKS's or
 * Karpenter's GPU nodes, and so remediated nothing there.
 */
class RealNodesSelectionTest {
  private static final Path NODES = Path.of("../tests/real/nodes");
  private static final Pattern LABEL = Pattern.compile("^(?:Labels:)?\\s*([A-Za-z0-9./_-]+)=(\\S*)\\s*$");
  private static final Pattern TABLE_ROW = Pattern.compile("^\\| `([^`]+)` \\| `[^`]*` \\| `([^`]*)` \\|");

  /** The labels of a Node YAML, of `kubectl describe node` output, or of a row of a label table. */
  @SuppressWarnings("unchecked")
  private static Map<String, String> labels(String file) throws IOException {
    String text = Files.readString(NODES.resolve(file));
    Map<String, String> labels = new LinkedHashMap<>();
    if (file.endsWith(".yaml")) {
      Map<String, Object> node = new Yaml().load(text);
      ((Map<String, Object>) ((Map<String, Object>) node.get("metadata")).get("labels")).forEach((k, v) -> labels.put(k, String.valueOf(v)));
      return labels;
    }
    for (String line : text.lines().toList()) {
      var m = (file.endsWith(".md") ? TABLE_ROW : LABEL).matcher(line);
      if (m.find()) {
        labels.put(m.group(1), m.group(2));
      }
    }
    return labels;
  }

  @Test
  void theDefaultSelectsTheGpuNodesOfGfdGkeAksAndKarpenter() throws IOException {
    LabelSelector gpuNodes = LabelSelector.gpuNodes();
    for (String file : new String[] {"gfd-h100-gpu-operator.txt", "gke-k80-default-pool.yaml", "aks-node-pool-labels-table.md",
        "eks-karpenter-g4dn.txt"}) {
      Map<String, String> labels = labels(file);
      assertThat(labels).as(file).isNotEmpty();
      assertThat(gpuNodes.matches(labels)).as(file + " " + labels).isTrue();
      assertThat(LabelSelector.parse("nvidia.com/gpu.present=true").value().matches(labels))
          .as("the old default on " + file).isEqualTo(file.startsWith("gfd-"));
    }
  }

  @Test
  void aGpuNodeGroupWithNoGpuLabelIsNotGuessedFromItsInstanceType() throws IOException {
    // An EKS managed node group's p3.2xlarge carries no GPU label at all: it is not selected (the service then says that
    // the selector matches no node), and a label, or a node_selector of its own, selects it.
    Map<String, String> labels = labels("eks-managed-nodegroup-p3.txt");
    assertThat(labels).containsEntry("node.kubernetes.io/instance-type", "p3.2xlarge");
    assertThat(LabelSelector.gpuNodes().matches(labels)).isFalse();
    assertThat(LabelSelector.anyOf(List.of(LabelSelector.gpuNodes(),
        LabelSelector.parse("eks.amazonaws.com/nodegroup=managed-ondemand-20220925033713447600000001").value())).matches(labels)).isTrue();
  }

  @Test
  void playbooksChooseANodeGroupByTheLabelsRealNodesCarry() throws IOException {
    PlaybookSet set = new PlaybookSet(List.of(
        group("karpenter-t4", "karpenter.k8s.aws/instance-gpu-manufacturer=\"nvidia\"",
            "karpenter.k8s.aws/instance-family=~\"g4dn|g5\""),
        group("gke-default-pool", "cloud.google.com/gke-nodepool=\"default-pool\"",
            "cloud.google.com/gke-accelerator=~\"nvidia-.*\""),
        group("gpu-operator-h100", "nvidia.com/gpu.product=~\".*H100.*\""),
        group("any")), "test");
    Map<String, String> alert = Map.of("alertname", "GpuXidHardwareError");
    assertThat(set.firstMatch(alert, labels("eks-karpenter-g4dn.txt")).orElseThrow().name()).isEqualTo("karpenter-t4");
    assertThat(set.firstMatch(alert, labels("gke-k80-default-pool.yaml")).orElseThrow().name()).isEqualTo("gke-default-pool");
    assertThat(set.firstMatch(alert, labels("gfd-h100-gpu-operator.txt")).orElseThrow().name()).isEqualTo("gpu-operator-h100");
    assertThat(set.firstMatch(alert, labels("eks-managed-nodegroup-p3.txt")).orElseThrow().name())
        .as("a node of no group").isEqualTo("any");
  }

  /** A playbook for the XID alert on the nodes these matchers, over real label keys, select. */
  private static Playbook group(String name, String... nodeMatchers) {
    List<Matcher> node = new ArrayList<>();
    for (String text : nodeMatchers) {
      MapReader.Parsed<Matcher> parsed = Matcher.parseNodeLabel(text);
      assertThat(parsed.error()).as(text).isNull();
      node.add(parsed.value());
    }
    return new Playbook(name, "", List.of(Matcher.parse("alertname=\"GpuXidHardwareError\"").value()), node, false,
        Optional.empty(), Optional.empty(), List.of(), List.of(), Optional.empty(), "");
  }
}
