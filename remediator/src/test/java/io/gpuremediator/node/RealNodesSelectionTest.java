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

  /** The Neuron instance types of AWS's own manifests (tests/real/aws): the CloudWatch add-on's and the Neuron chart's. */
  private static List<String> neuronInstanceTypes() throws IOException {
    List<String> types = new ArrayList<>();
    Pattern item = Pattern.compile("^\\s*- ((?:ml\\.)?(?:trn|inf)[0-9a-z.]+)\\s*$");
    for (String line : Files.readAllLines(Path.of("../tests/real/aws/cloudwatch-observability-neuron-monitor-affinity.yaml"))) {
      var m = item.matcher(line);
      if (m.find()) {
        types.add(m.group(1));
      }
    }
    String chart = Files.readString(Path.of("../tests/real/aws/neuron-helm-chart-neuron-instances.yaml"));
    for (String t : chart.substring(chart.indexOf('[') + 1, chart.indexOf(']')).split(",")) {
      types.add(t.strip());
    }
    return types;
  }

  /**
   * A real Trainium node of an EKS managed node group made by eksctl (trn1.2xlarge, EKS 1.33, Amazon Linux 2023,
   * recorded with `kubectl describe node`): it carries no accelerator label at all, only its instance type, and the
   * Neuron device plugin's resource. The default selects it; GPU Feature Discovery's label, the old default, does not.
   */
  @Test
  void theDefaultSelectsARealTrainiumNodeOfAnEksctlManagedNodeGroup() throws IOException {
    String file = "eks-eksctl-managed-nodegroup-trn1-2xlarge.txt";
    Map<String, String> labels = labels(file);
    assertThat(labels).containsEntry("node.kubernetes.io/instance-type", "trn1.2xlarge")
        .containsEntry("eks.amazonaws.com/nodegroup", "neuron-trn1-2x").containsEntry("alpha.eksctl.io/nodegroup-name", "neuron-trn1-2x");
    assertThat(labels.keySet()).noneMatch(k -> k.contains("accelerator") || k.contains("neuron.") || k.startsWith("nvidia.com/"));
    assertThat(Files.readString(NODES.resolve(file))).containsPattern("(?m)^Capacity:\\n  aws\\.amazon\\.com/neuron:\\s+1$");
    assertThat(LabelSelector.gpuNodes().matches(labels)).isTrue();
    assertThat(LabelSelector.parse("nvidia.com/gpu.present=true").value().matches(labels)).isFalse();
  }

  /**
   * Every Trainium and Inferentia type AWS's own manifests list (the CloudWatch add-on's, the Neuron chart's), on a node
   * labelled as the real managed node group's Trainium node is, with that type: selected. The same node as a CPU
   * instance is not.
   */
  @Test
  void theDefaultSelectsNeuronNodesOfManagedNodeGroupsAndEksctlOfEveryTypeAwsLists() throws IOException {
    List<String> types = neuronInstanceTypes();
    assertThat(types).contains("trn1.32xlarge", "trn2.48xlarge", "inf2.48xlarge", "inf1.xlarge", "ml.trn1.32xlarge");
    Map<String, String> trn1 = labels("eks-eksctl-managed-nodegroup-trn1-2xlarge.txt");
    for (String type : types) {
      Map<String, String> labels = new LinkedHashMap<>(trn1);
      labels.put("node.kubernetes.io/instance-type", type);
      labels.put("beta.kubernetes.io/instance-type", type);
      assertThat(LabelSelector.gpuNodes().matches(labels)).as(type).isTrue();
    }
    Map<String, String> cpu = new LinkedHashMap<>(trn1);
    cpu.put("node.kubernetes.io/instance-type", "m5.2xlarge");
    assertThat(LabelSelector.gpuNodes().matches(cpu)).isFalse();
  }

  /** One instance type of Karpenter's generated reference: the labels Karpenter puts on its nodes, and their resources. */
  private record KarpenterType(String name, Map<String, String> labels, Map<String, String> resources) {}

  /** tests/real/karpenter/instance-types-accelerated.md: every accelerated family Karpenter documents, and two CPU ones. */
  private static List<KarpenterType> karpenterTypes() throws IOException {
    List<KarpenterType> types = new ArrayList<>();
    Pattern row = Pattern.compile("^ \\|([^|]+)\\|([^|]*)\\|$");
    Map<String, String> table = null;
    for (String line : Files.readAllLines(Path.of("../tests/real/karpenter/instance-types-accelerated.md"))) {
      if (line.startsWith("### `")) {
        types.add(new KarpenterType(line.substring(5, line.length() - 1), new LinkedHashMap<>(), new LinkedHashMap<>()));
      } else if (line.equals("#### Labels")) {
        table = types.get(types.size() - 1).labels();
      } else if (line.equals("#### Resources")) {
        table = types.get(types.size() - 1).resources();
      } else {
        var m = row.matcher(line);
        if (table != null && m.find() && !m.group(1).equals("Label") && !m.group(1).equals("Resource") && !m.group(1).startsWith("--")) {
          table.put(m.group(1), m.group(2));
        }
      }
    }
    return types;
  }

  /**
   * Every instance type of every accelerated family Karpenter documents (its reference is generated from EC2's own
   * instance data), labelled as Karpenter labels its nodes: selected exactly when it has NVIDIA GPUs or Neuron devices.
   * AMD GPUs (g4ad), Qualcomm's AI 100 (dl2q) and CPU types are not remediated by this product.
   */
  @Test
  void theDefaultSelectsExactlyTheKarpenterTypesWithNvidiaGpusOrNeuronDevices() throws IOException {
    List<KarpenterType> types = karpenterTypes();
    assertThat(types).extracting(KarpenterType::name)
        .contains("trn1.2xlarge", "trn1n.32xlarge", "trn2.48xlarge", "inf1.xlarge", "inf2.48xlarge", "p5.48xlarge", "g4ad.xlarge", "dl2q.24xlarge");
    int neuron = 0;
    for (KarpenterType t : types) {
      assertThat(t.labels()).as(t.name()).containsEntry("node.kubernetes.io/instance-type", t.name());
      boolean accelerated = t.resources().containsKey("nvidia.com/gpu") || t.resources().containsKey("aws.amazon.com/neuron");
      assertThat(LabelSelector.gpuNodes().matches(t.labels())).as(t.name() + " " + t.labels()).isEqualTo(accelerated);
      neuron += t.resources().containsKey("aws.amazon.com/neuron") ? 1 : 0;
    }
    assertThat(neuron).as("Trainium and Inferentia types").isGreaterThanOrEqualTo(12);
  }

  /**
   * A Neuron type no list knows yet (trn3 was announced after the recorded reference): Karpenter's accelerator label,
   * from EC2's NeuronInfo (tests/real/karpenter), selects it whatever its name.
   */
  @Test
  void theDefaultSelectsNeuronNodesKarpenterLaunchedOfATypeNoListKnows() throws IOException {
    String source = Files.readString(Path.of("../tests/real/karpenter/instancetype-neuron-labels.go.txt"));
    assertThat(source).contains("LabelInstanceAcceleratorManufacturer).Insert(lowerKabobCase(\"aws\"))")
        .contains("LabelInstanceAcceleratorManufacturer      = apis.Group + \"/instance-accelerator-manufacturer\"")
        .contains("Group              = \"karpenter.k8s.aws\"");
    Map<String, String> labels = new LinkedHashMap<>(karpenterTypes().stream().filter(t -> t.name().equals("trn2.48xlarge"))
        .findFirst().orElseThrow().labels());
    labels.put("karpenter.k8s.aws/instance-family", "trn3");
    labels.put("node.kubernetes.io/instance-type", "trn3.48xlarge");
    labels.put("karpenter.k8s.aws/instance-accelerator-name", "trainium3");
    assertThat(LabelSelector.gpuNodes().matches(labels)).isTrue();
  }

  /**
   * The Neuron NPD DaemonSet (deploy/npd) runs on the nodes the service selects as Neuron nodes: its node affinity's
   * terms are the default's Neuron selectors, and every instance type of AWS's own manifests is among them (the old
   * nodeSelector, aws.amazon.com/neuron.present=true, is a label no EKS, Karpenter or eksctl node carries).
   */
  @Test
  @SuppressWarnings("unchecked")
  void theNeuronNodeProblemDetectorRunsOnTheNeuronNodesTheServiceSelects() throws IOException {
    Map<String, Object> ds = new Yaml().load(Files.readString(Path.of("../deploy/npd/daemonset-neuron.yaml")));
    Map<String, Object> spec = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) ds.get("spec")).get("template")).get("spec");
    assertThat(spec).doesNotContainKey("nodeSelector");
    List<Map<String, Object>> terms = (List<Map<String, Object>>) ((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>)
        spec.get("affinity")).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")).get("nodeSelectorTerms");
    List<String> selectors = new ArrayList<>();
    for (Map<String, Object> term : terms) {
      for (Map<String, Object> e : (List<Map<String, Object>>) term.get("matchExpressions")) {
        assertThat(e.get("operator")).isEqualTo("In");
        List<String> values = (List<String>) e.get("values");
        selectors.add(values.size() == 1 && !"node.kubernetes.io/instance-type".equals(e.get("key")) ? e.get("key") + "=" + values.get(0)
            : e.get("key") + " in (" + String.join(", ", values) + ")");
      }
    }
    assertThat(LabelSelector.anyOf(selectors.stream().map(t -> LabelSelector.parse(t).value()).toList()).alternatives())
        .isEqualTo(LabelSelector.anyOf(LabelSelector.NEURON_NODES.stream().map(t -> LabelSelector.parse(t).value()).toList())
            .alternatives());
    String types = selectors.get(1);
    assertThat(neuronInstanceTypes()).allSatisfy(t -> assertThat(types).containsPattern("[ (]" + Pattern.quote(t) + "[,)]"));
    // AWS's own Neuron chart places its NPD the same way (by instance type, its neuronInstances), and binds its metrics to
    // 127.0.0.1 (no --prometheus-address): why its condition reaches Prometheus only through kube-state-metrics.
    String aws = Files.readString(Path.of("../tests/real/aws/neuron-helm-chart-npd-daemonset.yaml"));
    assertThat(aws).contains("key: {{ include \"node.instanceTypeKey\" . }}", "values: {{ .Values.neuronInstances")
        .doesNotContain("prometheus-address");
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
