package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.simapi.DraShapes;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.DraObjects;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GPU fenced among what really holds GPUs on a DRA node, through the closed loop against the emulated API server: the
 * GPU Operator v26.7 DRA stack's exporter, whose one claim takes every GPU with admin access (tests/real/gpu-operator/
 * v26.7.0-dra); a pod that asked for {@code nvidia.com/gpu} and got a claim the scheduler made (KEP-5004); a gang's claim
 * reserved for its PodGroup (KEP-5729); and a rule whose eviction is still in progress (KEP-5055).
 */
class FenceRealHoldersMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String PLAYBOOKS = FenceGpuMockTest.PLAYBOOKS;
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  private void start(String effect) {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, effect), ClosedLoopHarness.Fencing.DEFAULT);
    DraObjects.slice(h.client, NODE, 8);
    DraObjects.exporter(h.client, NODE, 8);
  }

  private boolean exporterRuns() {
    return h.client.pods().inNamespace(DraShapes.EXPORTER_NAMESPACE).withName(DraShapes.exporterPod(NODE).getMetadata()
        .getName()).get() != null;
  }

  @Test
  void aFenceEvictsTheGpusWorkloadAndLeavesTheNodesExporterRunning() {
    start("NoExecute");
    DraObjects.podHolding(h.client, "ml", "trainer-3", NODE, 3);
    h.fire(FenceGpuMockTest.xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(exporterRuns()).as("the exporter keeps exporting every GPU, the fenced one included").isTrue();
    assertThat(h.server.deviceTaintEvictions(DraShapes.EXPORTER_NAMESPACE, DraShapes.exporterPod(NODE).getMetadata()
        .getName())).isZero();
    assertThat(h.client.pods().inNamespace("ml").withName("trainer-3").get()).as("the GPU's workload is gone").isNull();
    assertThat(h.decisions(Reason.GPU_FENCED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains(":NoSchedule)").contains("evicted ml/trainer-3 through the Eviction API")
        .contains("kept running (dra.keep_namespaces): gpu-operator/" + DraShapes.EXPORTER));
    assertThat(h.jobs("gpu_reset")).as("the kept exporter does not hold the reset back").hasSize(1);
    assertThat(h.podNotices("ml")).singleElement().satisfies(e -> assertThat(e.getMessage())
        .contains("ml/trainer-3 was evicted by a fence of the GPU it holds on node " + NODE)
        .contains("GPU " + DraObjects.uuid(NODE, 3) + ", alert GpuXidHardwareError"));
    assertThat(h.podNotices(DraShapes.EXPORTER_NAMESPACE)).as("the kept exporter is not told").isEmpty();
  }

  @Test
  void aNoExecuteRuleAsItWasWrittenBeforeWouldHaveTakenTheExporter() {
    start("NoExecute");
    h.client.genericKubernetesResources(DraObjects.RULES).resource(Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: DeviceTaintRule
        metadata: {name: someone-elses}
        spec:
          deviceSelector: {driver: gpu.nvidia.com, pool: %s, device: gpu-3}
          taint: {key: example.com/unhealthy, effect: NoExecute}
        """.formatted(NODE), GenericKubernetesResource.class)).create();
    assertThat(exporterRuns()).as("neither admin access nor allocationMode All is exempt (KEP-5055)").isFalse();
  }

  @Test
  void aPodWhoseGpuCameAsAnExtendedResourceHoldsTheResetBack() {
    start("NoSchedule");
    Pod pod = Serialization.unmarshal("""
        apiVersion: v1
        kind: Pod
        metadata: {name: infer-3, namespace: ml}
        spec:
          nodeName: %1$s
          containers:
          - name: main
            image: nvcr.io/nvidia/tritonserver:25.08-py3
            resources: {limits: {nvidia.com/gpu: 1}}
        status:
          phase: Running
          extendedResourceClaimStatus:
            resourceClaimName: infer-3-extended-resources-8xk2p
            requestMappings: [{containerName: main, resourceName: nvidia.com/gpu, requestName: container-0-request-0}]
        """.formatted(NODE), Pod.class);
    h.client.pods().inNamespace("ml").resource(pod).create();
    h.client.genericKubernetesResources(DraShapes.CLAIMS).inNamespace("ml").resource(claim("infer-3-extended-resources-8xk2p",
        "{resource: pods, name: infer-3, uid: uid-infer-3}")).create();
    h.fire(FenceGpuMockTest.xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    h.look(NODE);
    assertThat(h.jobs("gpu_reset")).as("no reset while the pod holds the GPU").isEmpty();
    assertThat(h.decisions(Reason.GPU_IN_USE)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("ml/infer-3 holds GPU " + DraObjects.uuid(NODE, 3)));
  }

  @Test
  void aGangsClaimReservedForItsPodGroupHoldsTheResetBack() {
    start("NoSchedule");
    Pod pod = DraShapes.pod("ml", "gang-worker-3", NODE, "nvcr.io/nvidia/pytorch:25.08-py3");
    pod.getSpec().getResourceClaims().get(0).setResourceClaimName("gang-gpus");
    h.client.pods().inNamespace("ml").resource(pod).create();
    h.client.genericKubernetesResources(DraShapes.CLAIMS).inNamespace("ml").resource(claim("gang-gpus",
        "{apiGroup: scheduling.k8s.io, resource: podgroups, name: gang, uid: uid-gang}")).create();
    h.fire(FenceGpuMockTest.xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    h.look(NODE);
    assertThat(h.jobs("gpu_reset")).isEmpty();
    assertThat(h.decisions(Reason.GPU_IN_USE)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("ml/gang-worker-3 holds GPU " + DraObjects.uuid(NODE, 3)));
  }

  @Test
  void aRuleWhoseEvictionIsStillInProgressHoldsTheResetBack() {
    start("NoSchedule");
    DraObjects.podHolding(h.client, "ml", "trainer-3", NODE, 3);
    h.fire(FenceGpuMockTest.xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    String rule = "gpu-remediator." + NODE + ".gpu-3";
    h.client.genericKubernetesResources(DraObjects.RULES).withName(rule).editStatus(r -> {
      r.getAdditionalProperties().put("status", Map.of("conditions", List.of(Map.of("type", "EvictionInProgress",
          "status", "True", "reason", "PodsPendingEviction", "message", "1 pod needs to be evicted in 1 namespace.",
          "lastTransitionTime", "2026-11-22T10:01:00Z"))));
      return r;
    });
    h.client.pods().inNamespace("ml").withName("trainer-3").delete(); // its pod is gone, the rule's status not yet
    h.look(NODE);
    assertThat(h.jobs("gpu_reset")).isEmpty();
    assertThat(h.episode(NODE).progress().note()).as("the decision named the pod; the note says what holds it now")
        .contains("DeviceTaintRule " + rule + " says EvictionInProgress (1 pod needs to be evicted in 1 namespace.)")
        .doesNotContain("trainer-3");
  }

  /** A claim in {@code ml} allocated GPU 3 of the node, reserved for {@code consumer}. */
  private static GenericKubernetesResource claim(String name, String consumer) {
    return Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %1$s, namespace: ml}
        spec:
          devices:
            requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]
        status:
          allocation:
            devices:
              results: [{request: gpu, driver: gpu.nvidia.com, pool: %2$s, device: gpu-3}]
          reservedFor: [%3$s]
        """.formatted(name, NODE, consumer), GenericKubernetesResource.class);
  }
}
