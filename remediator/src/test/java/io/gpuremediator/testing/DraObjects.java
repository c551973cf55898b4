package io.gpuremediator.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;

/**
 * DRA objects in the shapes NVIDIA's DRA driver and Kubernetes publish (tests/real/dra): a node's ResourceSlice of
 * {@code gpu.nvidia.com} (one pool named after the node, devices {@code gpu-0}... with {@code type} and {@code uuid}
 * attributes, no {@code index}), and a pod whose ResourceClaim was allocated one of its GPUs and reserved for it.
 */
public final class DraObjects {
  /** ResourceSlices. */
  public static final ResourceDefinitionContext SLICES = context("ResourceSlice", "resourceslices", false);
  /** DeviceTaintRules. */
  public static final ResourceDefinitionContext RULES = context("DeviceTaintRule", "devicetaintrules", false);
  /** ResourceClaims. */
  public static final ResourceDefinitionContext CLAIMS = context("ResourceClaim", "resourceclaims", true);

  private DraObjects() {}

  /** The UUID the node's GPU {@code i} publishes (as dcgm-exporter's {@code UUID} label names it). */
  public static String uuid(String node, int i) {
    String hex = String.format("%08x", (node + "/" + i).hashCode());
    return "GPU-" + hex + "-5a5f-aa66-7660-" + String.format("%012d", i);
  }

  /** Publishes {@code gpus} GPUs of the node in a ResourceSlice of {@code gpu.nvidia.com}. */
  public static void slice(KubernetesClient client, String node, int gpus) {
    slice(client, node, gpus, List.of());
  }

  /** The same, with the driver's own taints on the GPUs {@code tainted} (as NVIDIA's driver writes them on XID 79). */
  public static void slice(KubernetesClient client, String node, int gpus, List<Integer> tainted) {
    StringBuilder devices = new StringBuilder();
    for (int i = 0; i < gpus; i++) {
      devices.append("  - name: gpu-").append(i).append("\n    attributes:\n      type: {string: gpu}\n      uuid: {string: ")
          .append(uuid(node, i)).append("}\n      productName: {string: NVIDIA H100 80GB HBM3}\n");
      if (tainted.contains(i)) {
        devices.append("    taints: [{key: gpu.nvidia.com/xid, value: \"79\", effect: NoSchedule}]\n");
      }
    }
    GenericKubernetesResource slice = Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: %1$s-gpu.nvidia.com-abcde}
        spec:
          driver: gpu.nvidia.com
          nodeName: %1$s
          pool: {generation: 1, name: %1$s, resourceSliceCount: 1}
          devices:
        %2$s""".formatted(node, devices.toString().indent(2)), GenericKubernetesResource.class);
    client.genericKubernetesResources(SLICES).resource(slice).createOr(r -> r.update());
  }

  /** A running pod on the node whose ResourceClaim holds the node's GPU {@code gpu}. */
  public static void podHolding(KubernetesClient client, String namespace, String pod, String node, int gpu) {
    Nodes.runningPod(client, namespace, pod, node, Map.of("app", pod));
    client.genericKubernetesResources(CLAIMS).inNamespace(namespace).resource(Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %1$s-gpu, namespace: %2$s}
        spec:
          devices:
            requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]
        status:
          allocation:
            devices:
              results: [{request: gpu, driver: gpu.nvidia.com, pool: %3$s, device: gpu-%4$d}]
          reservedFor: [{resource: pods, name: %1$s, uid: uid-%1$s}]
        """.formatted(pod, namespace, node, gpu), GenericKubernetesResource.class)).create();
  }

  /** Every DeviceTaintRule. */
  public static List<GenericKubernetesResource> rules(KubernetesClient client) {
    return client.genericKubernetesResources(RULES).list().getItems();
  }

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io").withVersion("v1").withKind(kind)
        .withPlural(plural).withNamespaced(namespaced).build();
  }
}
