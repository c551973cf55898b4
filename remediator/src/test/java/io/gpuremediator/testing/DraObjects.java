package io.gpuremediator.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpuremediator.simapi.DraShapes;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * DRA objects in the emulated cluster ({@link DraShapes}: the shapes NVIDIA's DRA driver and Kubernetes publish): a
 * node's eight GPUs under {@link #uuid}, and pods whose ResourceClaims hold one.
 */
public final class DraObjects {
  /** DeviceTaintRules. */
  public static final ResourceDefinitionContext RULES = DraShapes.RULES;

  private DraObjects() {}

  /** The UUID the node's GPU {@code i} publishes (as dcgm-exporter's {@code UUID} label names it). */
  public static String uuid(String node, int i) {
    return String.format("GPU-%08x-5a5f-aa66-7660-%012d", (node + "/" + i).hashCode(), i);
  }

  /** Publishes {@code gpus} GPUs of the node in a ResourceSlice of {@code gpu.nvidia.com}. */
  public static void slice(KubernetesClient client, String node, int gpus) {
    slice(client, node, gpus, List.of());
  }

  /** The same, with the driver's own taints on the GPUs {@code tainted} (as NVIDIA's driver writes them on XID 79). */
  public static void slice(KubernetesClient client, String node, int gpus, List<Integer> tainted) {
    Map<Integer, String> uuids = new TreeMap<>();
    Map<Integer, String> taints = new TreeMap<>();
    for (int i = 0; i < gpus; i++) {
      uuids.put(i, uuid(node, i));
      if (tainted.contains(i)) {
        taints.put(i, "79");
      }
    }
    client.genericKubernetesResources(DraShapes.SLICES).resource(DraShapes.slice(node, uuids, taints)).createOr(r -> r.update());
  }

  /** A running pod on the node whose ResourceClaim holds the node's GPU {@code gpu}. */
  public static void podHolding(KubernetesClient client, String namespace, String pod, String node, int gpu) {
    client.pods().inNamespace(namespace).resource(DraShapes.pod(namespace, pod, node, "nvcr.io/nvidia/pytorch:25.08-py3"))
        .create();
    client.genericKubernetesResources(DraShapes.CLAIMS).inNamespace(namespace)
        .resource(DraShapes.claim(namespace, pod, node, gpu)).create();
  }

  /** The GPU Operator v26.7 DRA stack's exporter on the node, its claim allocated all {@code gpus} GPUs (admin access). */
  public static void exporter(KubernetesClient client, String node, int gpus) {
    client.pods().inNamespace(DraShapes.EXPORTER_NAMESPACE).resource(DraShapes.exporterPod(node)).create();
    client.genericKubernetesResources(DraShapes.CLAIMS).inNamespace(DraShapes.EXPORTER_NAMESPACE)
        .resource(DraShapes.exporterClaim(node, gpus)).create();
  }

  /** Every DeviceTaintRule. */
  public static List<GenericKubernetesResource> rules(KubernetesClient client) {
    return client.genericKubernetesResources(RULES).list().getItems();
  }
}
