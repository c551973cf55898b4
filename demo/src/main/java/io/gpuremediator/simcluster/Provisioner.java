package io.gpuremediator.simcluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Who provisioned the simulated nodes, and the controller that replaces one: Karpenter's NodeClaims
 * ({@code karpenter.sh/v1}, with the {@code karpenter.sh/termination} finalizer) for most GPU nodes, and Cluster API
 * Machines for the last two (one owned by a MachineSet, one an orphan), with the node annotations Cluster API sets.
 * Like Karpenter, a NodeClaim deleted has its node terminated (the Node object goes), its finalizer removed, and a new
 * node launched for the pending work: a NodeClaim bound to a new Node that registers with the NodePool's startup taint
 * {@value #STARTUP_TAINT}, Ready, with a GPU node's labels. Like a MachineSet, a Machine it owns that is deleted is
 * followed by another, whose node registers with the same taint (its bootstrap config's); an orphan is not.
 */
final class Provisioner implements AutoCloseable {
  /** The NodePool's startupTaints: a new GPU node takes no work until the pre-flight gate removes it. */
  static final String STARTUP_TAINT = "gpu-remediator.io/preflight";
  /** The names of launched nodes start so. */
  static final String LAUNCHED = "gpu-node-k";
  /** The Cluster API namespace of the Machines. */
  static final String CAPI_NAMESPACE = "capi-gpu";
  private static final ResourceDefinitionContext NODE_CLAIMS = new ResourceDefinitionContext.Builder()
      .withGroup("karpenter.sh").withVersion("v1").withKind("NodeClaim").withPlural("nodeclaims").withNamespaced(false).build();
  private static final ResourceDefinitionContext MACHINES = new ResourceDefinitionContext.Builder()
      .withGroup("cluster.x-k8s.io").withVersion("v1beta1").withKind("Machine").withPlural("machines").withNamespaced(true)
      .build();
  private static final String NODEPOOL = "gpu-h100";

  private final KubernetesClient client;
  private final Function<String, Node> nodeOf;
  private final AtomicInteger launched = new AtomicInteger();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sim-karpenter");
    t.setDaemon(true);
    return t;
  });

  /** {@code nodeOf}: a GPU node of this name as the cluster registers one. */
  Provisioner(KubernetesClient client, Function<String, Node> nodeOf) {
    this.client = client;
    this.nodeOf = nodeOf;
  }

  /** Gives every GPU node its NodeClaim, but the last two their Machines (a MachineSet's, and an orphan). */
  void seed(List<SimNode> gpuNodes) {
    for (int i = 0; i < gpuNodes.size(); i++) {
      String node = gpuNodes.get(i).name();
      if (i == gpuNodes.size() - 2) {
        machine(node, Optional.of("gpu-md-0-7f9c4"));
      } else if (i == gpuNodes.size() - 1) {
        machine(node, Optional.empty());
      } else {
        claim(node);
      }
    }
  }

  void start() {
    timer.scheduleWithFixedDelay(this::tick, 500, 500, TimeUnit.MILLISECONDS);
  }

  private void claim(String node) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("nodeName", node);
    status.put("providerID", Optional.ofNullable(client.nodes().withName(node).get()).map(n -> n.getSpec().getProviderID())
        .orElse(""));
    client.genericKubernetesResources(NODE_CLAIMS).resource(new GenericKubernetesResourceBuilder()
        .withApiVersion("karpenter.sh/v1").withKind("NodeClaim")
        .withNewMetadata().withName(NODEPOOL + "-" + Integer.toHexString(node.hashCode() & 0xfffff))
        .withFinalizers("karpenter.sh/termination").withLabels(Map.of("karpenter.sh/nodepool", NODEPOOL))
        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("karpenter.sh/v1").withKind("NodePool")
            .withName(NODEPOOL).withUid("nodepool-" + NODEPOOL).withBlockOwnerDeletion(true).build())
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("nodeClassRef", Map.of("group", "karpenter.k8s.aws", "kind",
            "EC2NodeClass", "name", "gpu"), "startupTaints", List.of(Map.of("key", STARTUP_TAINT, "effect", "NoSchedule"))),
            "status", status))
        .build()).create();
  }

  private void machine(String node, Optional<String> machineSet) {
    String name = machineSet.map(s -> s + "-" + Integer.toHexString(node.hashCode() & 0xfffff)).orElse("gpu-standalone-0");
    GenericKubernetesResourceBuilder b = new GenericKubernetesResourceBuilder().withApiVersion("cluster.x-k8s.io/v1beta1")
        .withKind("Machine").withNewMetadata().withNamespace(CAPI_NAMESPACE).withName(name)
        .withFinalizers("machine.cluster.x-k8s.io").withLabels(Map.of("cluster.x-k8s.io/cluster-name", "gpu")).endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("clusterName", "gpu"), "status",
            Map.of("nodeRef", Map.of("apiVersion", "v1", "kind", "Node", "name", node), "phase", "Running")));
    machineSet.ifPresent(set -> b.editMetadata().withOwnerReferences(new OwnerReferenceBuilder()
        .withApiVersion("cluster.x-k8s.io/v1beta1").withKind("MachineSet").withName(set).withUid("machineset-" + set)
        .withController(true).withBlockOwnerDeletion(true).build()).endMetadata());
    client.genericKubernetesResources(MACHINES).inNamespace(CAPI_NAMESPACE).resource(b.build()).create();
    client.nodes().withName(node).edit(n -> {
      Map<String, String> annotations = new LinkedHashMap<>(Optional.ofNullable(n.getMetadata().getAnnotations()).orElse(Map.of()));
      annotations.put("cluster.x-k8s.io/cluster-name", "gpu");
      annotations.put("cluster.x-k8s.io/cluster-namespace", CAPI_NAMESPACE);
      annotations.put("cluster.x-k8s.io/machine", name);
      annotations.put("cluster.x-k8s.io/owner-kind", machineSet.isPresent() ? "MachineSet" : "");
      annotations.put("cluster.x-k8s.io/owner-name", machineSet.orElse(""));
      n.getMetadata().setAnnotations(annotations);
      return n;
    });
  }

  /**
   * Terminates the node of each NodeClaim or Machine being deleted and lets the object go; launches a replacement for
   * a NodeClaim (Karpenter provisions for the pending work) and for a Machine its MachineSet owns (an orphan's is gone
   * for good).
   */
  private void tick() {
    try {
      for (GenericKubernetesResource c : client.genericKubernetesResources(NODE_CLAIMS).list().getItems()) {
        if (c.getMetadata().getDeletionTimestamp() != null) {
          terminate(c, NODE_CLAIMS, "nodeName");
          claim(launch());
        }
      }
      for (GenericKubernetesResource m : client.genericKubernetesResources(MACHINES).inNamespace(CAPI_NAMESPACE).list()
          .getItems()) {
        if (m.getMetadata().getDeletionTimestamp() != null) {
          terminate(m, MACHINES, "nodeRef");
          Optional<String> set = Optional.ofNullable(m.getMetadata().getOwnerReferences()).orElse(List.of()).stream()
              .filter(o -> Boolean.TRUE.equals(o.getController())).map(o -> o.getName()).findFirst();
          if (set.isPresent()) {
            machine(launch(), set);
          }
        }
      }
    } catch (RuntimeException e) {
      System.err.println("sim-karpenter: " + e);
    }
  }

  /** Deletes the object's node, then removes its finalizer and the object, as its controller does once it terminated. */
  private void terminate(GenericKubernetesResource o, ResourceDefinitionContext kind, String statusField) {
    Object status = o.getAdditionalProperties().get("status");
    Object node = status instanceof Map<?, ?> m ? m.get(statusField) : null;
    if (node instanceof Map<?, ?> ref) {
      node = ref.get("name");
    }
    client.nodes().withName(String.valueOf(node)).delete();
    o.getMetadata().setFinalizers(new ArrayList<>());
    var objects = client.genericKubernetesResources(kind);
    if (o.getMetadata().getNamespace() == null) {
      objects.resource(o).update();
      objects.withName(o.getMetadata().getName()).delete();
    } else {
      objects.inNamespace(o.getMetadata().getNamespace()).resource(o).update();
      objects.inNamespace(o.getMetadata().getNamespace()).withName(o.getMetadata().getName()).delete();
    }
  }

  /** A new GPU node, registering with the startup taint; its name. */
  private String launch() {
    String name = LAUNCHED + launched.incrementAndGet();
    Node n = nodeOf.apply(name);
    n.getMetadata().getLabels().put("karpenter.sh/nodepool", NODEPOOL);
    n.getSpec().setTaints(List.of(new TaintBuilder().withKey(STARTUP_TAINT).withEffect("NoSchedule").build()));
    client.nodes().resource(n).create();
    return name;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
