package io.gpuremediator.node;

import java.util.List;
import java.util.Optional;

/**
 * A way a node is replaced, one row each: the name playbooks write ({@code replace: {provider}}), the key under
 * {@code cloud} in the service config that says it is deployed, the deploy overlay that sets that key and grants its
 * RBAC, and, for a provider through the Kubernetes API, the object that owns the node, whose deletion has its
 * controller replace it. A new provider through the Kubernetes API that deletes an owner object is a row here and its
 * overlay; nothing else.
 *
 * @param owner the owner object (empty for a cloud's API)
 * @param controller what replaces the node once its owner is deleted, as decisions name it ("Karpenter")
 * @param effect what the controller then does, as decisions say it ("drains and terminates the node")
 */
public record ReplaceProvider(String name, String configKey, String overlay, Optional<NodeOwner.Kind> owner,
    String controller, String effect) {
  /** An instance marked Unhealthy in its AWS Auto Scaling group ({@code cloud.aws}). */
  public static final ReplaceProvider AWS = new ReplaceProvider("aws", "aws", "deploy/aws", Optional.empty(),
      "its Auto Scaling group", "terminates and replaces the instance");
  /** Karpenter: its {@code karpenter.sh/v1} NodeClaim deleted. */
  public static final ReplaceProvider KARPENTER = new ReplaceProvider("karpenter", "karpenter", "deploy/karpenter",
      Optional.of(new NodeOwner.Kind("karpenter.sh/v1", "NodeClaim", "nodeclaims", false, "nodeName")), "Karpenter",
      "drains and terminates the node");
  /** Cluster API: its Machine deleted (its MachineSet creates another) or handed to its MachineHealthCheck. */
  public static final ReplaceProvider CLUSTER_API = new ReplaceProvider("cluster-api", "cluster_api", "deploy/cluster-api",
      Optional.of(new NodeOwner.Kind("cluster.x-k8s.io/v1beta1", "Machine", "machines", true, "nodeRef")), "its MachineSet",
      "creates another");
  /** Every provider, in the order messages list them. */
  public static final List<ReplaceProvider> ROWS = List.of(AWS, KARPENTER, CLUSTER_API);

  /** The provider of this name. */
  public static Optional<ReplaceProvider> named(String name) {
    return ROWS.stream().filter(p -> p.name().equals(name)).findFirst();
  }

  /** Every name a playbook may write. */
  public static List<String> names() {
    return ROWS.stream().map(ReplaceProvider::name).toList();
  }

  /** The providers through the Kubernetes API (an owner object): their config key is their deployment. */
  public static List<ReplaceProvider> throughKubernetes() {
    return ROWS.stream().filter(p -> p.owner().isPresent()).toList();
  }
}
