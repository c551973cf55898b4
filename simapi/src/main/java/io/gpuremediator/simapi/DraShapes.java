package io.gpuremediator.simapi;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;

/**
 * The DRA objects the emulated cluster's users create, in the shapes NVIDIA's DRA driver and Kubernetes publish
 * (tests/real/dra): a node's ResourceSlice of {@code gpu.nvidia.com} (one pool named after the node, devices
 * {@code gpu-<i>} with {@code type} and {@code uuid} attributes, no {@code index}; a driver's own taint on some), and a
 * ResourceClaim allocated one GPU and reserved for its pod. For the tests, the demo and the bench alike.
 */
public final class DraShapes {
  /** ResourceSlices. */
  public static final ResourceDefinitionContext SLICES = context("ResourceSlice", "resourceslices", false);
  /** DeviceTaintRules. */
  public static final ResourceDefinitionContext RULES = context("DeviceTaintRule", "devicetaintrules", false);
  /** ResourceClaims. */
  public static final ResourceDefinitionContext CLAIMS = context("ResourceClaim", "resourceclaims", true);

  private DraShapes() {}

  /**
   * The node's slice of {@code gpu.nvidia.com}: one device a GPU, by index, with its UUID; {@code driverTaints} puts the
   * driver's own taint of a fatal XID on the GPUs named ({@code gpu.nvidia.com/xid=<value>:NoSchedule}).
   */
  public static GenericKubernetesResource slice(String node, Map<Integer, String> uuids, Map<Integer, String> driverTaints) {
    StringBuilder devices = new StringBuilder();
    uuids.forEach((gpu, uuid) -> {
      devices.append("- name: gpu-").append(gpu).append("\n  attributes:\n    type: {string: gpu}\n    uuid: {string: ")
          .append(uuid).append("}\n    productName: {string: NVIDIA H100 80GB HBM3}\n");
      if (driverTaints.containsKey(gpu)) {
        devices.append("  taints: [{key: gpu.nvidia.com/xid, value: \"").append(driverTaints.get(gpu))
            .append("\", effect: NoSchedule}]\n");
      }
    });
    return Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: %1$s-gpu.nvidia.com-7x9kq}
        spec:
          driver: gpu.nvidia.com
          nodeName: %1$s
          pool: {generation: 1, name: %1$s, resourceSliceCount: 1}
          devices:
        %2$s""".formatted(node, devices.toString().indent(4)), GenericKubernetesResource.class);
  }

  /**
   * A running pod on the node whose container uses the claim {@code <pod>-gpu} ({@code spec.resourceClaims}, the
   * container's {@code resources.claims}), as a pod that asks for one GPU through DRA is written.
   */
  public static Pod pod(String namespace, String pod, String node, String image) {
    return new PodBuilder().withNewMetadata().withName(pod).withNamespace(namespace).addToLabels("app", pod).endMetadata()
        .withNewSpec().withNodeName(node).addNewResourceClaim().withName("gpu").withResourceClaimName(pod + "-gpu")
        .endResourceClaim().addNewContainer().withName("main").withImage(image).withNewResources().addNewClaim()
        .withName("gpu").endClaim().endResources().endContainer().endSpec()
        .withNewStatus().withPhase("Running").endStatus().build();
  }

  /** The claim of {@code pod} (its name {@code <pod>-gpu}), allocated GPU {@code gpu} of the node's pool, reserved for it. */
  public static GenericKubernetesResource claim(String namespace, String pod, String node, int gpu) {
    return Serialization.unmarshal("""
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
        """.formatted(pod, namespace, node, gpu), GenericKubernetesResource.class);
  }

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io").withVersion("v1").withKind(kind)
        .withPlural(plural).withNamespaced(namespaced).build();
  }
}
