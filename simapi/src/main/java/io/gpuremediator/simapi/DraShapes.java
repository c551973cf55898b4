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
 * ResourceClaim allocated one GPU and reserved for its pod; and the GPU Operator v26.7 DRA stack's exporter, whose one
 * claim takes every GPU of its node with admin access. For the tests, the demo and the bench alike.
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

  /** The GPU Operator's namespace, where its DRA stack's exporter runs. */
  public static final String EXPORTER_NAMESPACE = "gpu-operator";
  /** The name of the v26.7 DRA stack's exporter DaemonSet. */
  public static final String EXPORTER = "nvidia-dcgm-exporter-dra";
  /**
   * The request of the exporter's claim template, as the GPU Operator v26.7.0 ships it for {@code resource.k8s.io/v1}
   * (tests/real/gpu-operator/v26.7.0-dra/0400_resourceclaimtemplate.yaml): every GPU, with admin access, no toleration.
   */
  public static final String EXPORTER_REQUEST =
      "{name: admin-gpus, exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All, adminAccess: true}}";

  /**
   * The v26.7 DRA stack's exporter pod on the node, as its DaemonSet makes it (tests/real/gpu-operator/v26.7.0-dra/
   * 0700_daemonset.yaml): owned by the DaemonSet, its claim {@code admin-gpus} made from the template
   * {@code nvidia-dcgm-exporter-admin} (named in {@code status.resourceClaimStatuses}).
   */
  public static Pod exporterPod(String node) {
    String pod = EXPORTER + "-" + Integer.toHexString(node.hashCode() & 0xfffff);
    return Serialization.unmarshal("""
        apiVersion: v1
        kind: Pod
        metadata:
          name: %1$s
          namespace: %2$s
          labels: {app: %3$s}
          ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: %3$s, uid: uid-%3$s, controller: true}]
        spec:
          nodeName: %4$s
          resourceClaims: [{name: admin-gpus, resourceClaimTemplateName: nvidia-dcgm-exporter-admin}]
          containers:
          - name: %3$s
            image: nvcr.io/nvidia/k8s/dcgm-exporter:4.5.2-4.8.1-distroless
            resources: {claims: [{name: admin-gpus}]}
        status:
          phase: Running
          resourceClaimStatuses: [{name: admin-gpus, resourceClaimName: %1$s-admin-gpus}]
        """.formatted(pod, EXPORTER_NAMESPACE, EXPORTER, node), Pod.class);
  }

  /**
   * The exporter pod's claim, made from the template and allocated every GPU of the node's pool with admin access
   * ({@code allocationMode: All}), reserved for the pod.
   */
  public static GenericKubernetesResource exporterClaim(String node, int gpus) {
    String pod = exporterPod(node).getMetadata().getName();
    StringBuilder results = new StringBuilder();
    for (int i = 0; i < gpus; i++) {
      results.append(i == 0 ? "" : ", ").append("{request: admin-gpus, driver: gpu.nvidia.com, pool: ").append(node)
          .append(", device: gpu-").append(i).append(", adminAccess: true}");
    }
    return Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: %1$s-admin-gpus
          namespace: %2$s
          annotations: {resource.kubernetes.io/pod-claim-name: admin-gpus}
        spec:
          devices:
            requests: [%3$s]
        status:
          allocation:
            devices:
              results: [%4$s]
          reservedFor: [{resource: pods, name: %1$s, uid: uid-%1$s}]
        """.formatted(pod, EXPORTER_NAMESPACE, EXPORTER_REQUEST, results), GenericKubernetesResource.class);
  }

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io").withVersion("v1").withKind(kind)
        .withPlural(plural).withNamespaced(namespaced).build();
  }
}
