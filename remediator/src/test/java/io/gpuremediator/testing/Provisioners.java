package io.gpuremediator.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The objects of the controllers that provision nodes, as they are in a cluster: Karpenter NodeClaims built from the
 * one recorded in {@code tests/real/karpenter/nodeclaim-describe.txt} (its name, uid, finalizer, NodePool owner and
 * providerID; bound to a test node), and Cluster API Machines with the node annotations Cluster API sets.
 */
public final class Provisioners {
  /** Where NodeClaims are read and written. */
  public static final ResourceDefinitionContext NODE_CLAIMS = new ResourceDefinitionContext.Builder()
      .withGroup("karpenter.sh").withVersion("v1").withKind("NodeClaim").withPlural("nodeclaims").withNamespaced(false)
      .build();
  /** Where Machines are read and written. */
  public static final ResourceDefinitionContext MACHINES = new ResourceDefinitionContext.Builder()
      .withGroup("cluster.x-k8s.io").withVersion("v1beta1").withKind("Machine").withPlural("machines")
      .withNamespaced(true).build();
  private static final Path RECORDED = Path.of("../tests/real/karpenter/nodeclaim-describe.txt");

  private Provisioners() {}

  /**
   * Creates the recorded NodeClaim, bound to {@code node} ({@code status.nodeName}); {@code suffix} makes its name and
   * uid unique when a test needs several. Returns its name.
   */
  public static String nodeClaim(KubernetesClient client, String node, String suffix) {
    String text;
    try {
      text = Files.readString(RECORDED);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String name = field(text, "^Name:\\s+(\\S+)") + suffix;
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("nodeName", node);
    status.put("providerID", field(text, "^  Provider ID:\\s+(\\S+)"));
    status.put("imageID", field(text, "^  Image ID:\\s+(\\S+)"));
    GenericKubernetesResource claim = new GenericKubernetesResourceBuilder()
        .withApiVersion(field(text, "^API Version:\\s+(\\S+)")).withKind(field(text, "^Kind:\\s+(\\S+)"))
        .withNewMetadata().withName(name).withUid(field(text, "^  UID:\\s+(\\S+)") + suffix)
        .withFinalizers(field(text, "^  Finalizers:\\n\\s+(\\S+)"))
        .withLabels(Map.of("karpenter.sh/nodepool", field(text, "karpenter.sh/nodepool=(\\S+)")))
        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("karpenter.sh/v1").withKind("NodePool")
            .withName(field(text, "Kind:\\s+NodePool\\n\\s+Name:\\s+(\\S+)")).withUid(field(text,
                "Kind:\\s+NodePool\\n\\s+Name:\\s+\\S+\\n\\s+UID:\\s+(\\S+)")).withBlockOwnerDeletion(true).build())
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("nodeClassRef", Map.of("group", "karpenter.k8s.aws", "kind",
            "EC2NodeClass", "name", "default")), "status", status))
        .build();
    client.genericKubernetesResources(NODE_CLAIMS).resource(claim).create();
    return name;
  }

  /** The NodeClaim of this name as the server has it, or empty when it is gone. */
  public static Optional<GenericKubernetesResource> nodeClaim(KubernetesClient client, String name) {
    return Optional.ofNullable(client.genericKubernetesResources(NODE_CLAIMS).withName(name).get());
  }

  /**
   * Creates a Machine for {@code node} in {@code namespace}, controlled by the MachineSet {@code machineSet} (none: an
   * orphan), and gives the node the annotations Cluster API sets on it.
   */
  public static void machine(KubernetesClient client, String namespace, String name, String node,
      Optional<String> machineSet) {
    machine(client, namespace, name, node, machineSet, true);
  }

  /** The same; {@code annotateNode} false leaves the node without the annotations (stripped, or an older release). */
  public static void machine(KubernetesClient client, String namespace, String name, String node,
      Optional<String> machineSet, boolean annotateNode) {
    GenericKubernetesResourceBuilder b = new GenericKubernetesResourceBuilder().withApiVersion("cluster.x-k8s.io/v1beta1")
        .withKind("Machine").withNewMetadata().withNamespace(namespace).withName(name).withUid("uid-" + name)
        .withFinalizers("machine.cluster.x-k8s.io")
        .withLabels(Map.of("cluster.x-k8s.io/cluster-name", "gpu-cluster")).endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("clusterName", "gpu-cluster"), "status",
            Map.of("nodeRef", Map.of("apiVersion", "v1", "kind", "Node", "name", node), "phase", "Running")));
    machineSet.ifPresent(set -> b.editMetadata().withOwnerReferences(new OwnerReferenceBuilder()
        .withApiVersion("cluster.x-k8s.io/v1beta1").withKind("MachineSet").withName(set).withUid("uid-" + set)
        .withController(true).withBlockOwnerDeletion(true).build()).endMetadata());
    client.genericKubernetesResources(MACHINES).inNamespace(namespace).resource(b.build()).create();
    if (!annotateNode) {
      return;
    }
    client.nodes().withName(node).edit(n -> {
      Map<String, String> annotations = new LinkedHashMap<>(Optional.ofNullable(n.getMetadata().getAnnotations())
          .orElse(Map.of()));
      n.getMetadata().setAnnotations(annotations);
      annotations.putAll(Map.of("cluster.x-k8s.io/cluster-name", "gpu-cluster",
          "cluster.x-k8s.io/cluster-namespace", namespace, "cluster.x-k8s.io/machine", name,
          "cluster.x-k8s.io/owner-kind", machineSet.isPresent() ? "MachineSet" : "", "cluster.x-k8s.io/owner-name",
          machineSet.orElse("")));
      return n;
    });
  }

  /** The Machine as the server has it, or empty when it is gone. */
  public static Optional<GenericKubernetesResource> machine(KubernetesClient client, String namespace, String name) {
    return Optional.ofNullable(client.genericKubernetesResources(MACHINES).inNamespace(namespace).withName(name).get());
  }

  /** The requests of {@code method} whose path starts with {@code prefix}, from the server's request log. */
  public static List<String> requests(List<String> log, String method, String prefix) {
    return log.stream().filter(r -> r.startsWith(method + " " + prefix)).toList();
  }

  private static String field(String text, String regex) {
    Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("the recorded NodeClaim has no match for " + regex);
    }
    return m.group(1);
  }
}
