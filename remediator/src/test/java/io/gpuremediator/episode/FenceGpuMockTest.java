package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.DraObjects;
import io.gpuremediator.testing.SignedLedgers;
import io.gpuremediator.value.CountOrPercent;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing one GPU instead of its node (DRA device taints), through the closed loop against the emulated API server over
 * HTTP: the server serves the node's ResourceSlice and the pods' ResourceClaims as NVIDIA's DRA driver and Kubernetes
 * publish them, and evicts under NoExecute as the device taint eviction controller does; the test plays the Job
 * controller. The GPU Operator's exporter beside a fence: {@link FenceRealHoldersMockTest}.
 */
class FenceGpuMockTest {
  private static final String NODE = "gpu-node-0";
  static final String PLAYBOOKS = """
      playbooks:
        - name: gpu-fence-reset
          match: ['alertname="GpuXidHardwareError"']
          actions:
            - fence_gpu: {gpus: "{{ labels.UUID }}", effect: %s, on_fail: gpu-node-reset}
            - gpu_reset: {timeout: 10m, on_fail: gpu-node-reset}
            - diagnose: {image: "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", command: [dcgmi, diag, -r, "2"]}
            - unfence_gpu: {}
        - name: gpu-node-reset
          match: ['alertname="NeverFires"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: xid, effect: NoSchedule}
            - cordon: {}
      """;
  @TempDir Path dir;
  /** Closes the instances restarted over it ({@link #second}) first. */
  @AutoClose private ClosedLoopHarness h;
  private ClosedLoopHarness second;

  private void start(String effect, ClosedLoopHarness.Fencing fencing) {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, effect), fencing);
    DraObjects.slice(h.client, NODE, 8);
    for (int gpu = 0; gpu < 8; gpu++) {
      DraObjects.podHolding(h.client, "ml", "trainer-" + gpu, NODE, gpu);
    }
  }

  private void start(String effect) {
    start(effect, ClosedLoopHarness.Fencing.DEFAULT);
  }

  static Alert xidOn(String node, int gpu) {
    return Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "f" + Integer.toHexString((node + gpu).hashCode()),
        Map.of("node", node, "gpu", Integer.toString(gpu), "UUID", DraObjects.uuid(node, gpu), "xid", "79",
            "severity", "critical"));
  }

  private List<String> trainers() {
    return h.client.pods().inNamespace("ml").list().getItems().stream().map(p -> p.getMetadata().getName()).sorted()
        .toList();
  }

  @Test
  void oneGpuIsFencedResetDiagnosedAndReturnedWhileItsNodeStaysInService() {
    start("NoExecute");
    h.fire(xidOn(NODE, 3));
    Episode repairing = h.lookUntil(NODE, Stage.REPAIRING, 3);

    GenericKubernetesResource rule = DraObjects.rules(h.client).get(0);
    assertThat(DraObjects.rules(h.client)).hasSize(1);
    assertThat(rule.getMetadata().getName()).isEqualTo("gpu-remediator." + NODE + ".gpu-3");
    assertThat(rule.getMetadata().getLabels()).containsEntry("gpu-remediator.io/managed", "true")
        .containsKey("gpu-remediator.io/episode");
    String spec = Serialization.asJson(rule.getAdditionalProperties().get("spec"));
    assertThat(spec).contains("\"driver\":\"gpu.nvidia.com\"", "\"pool\":\"" + NODE + "\"", "\"device\":\"gpu-3\"",
        "\"key\":\"gpu-remediator.io/unhealthy\"", "\"value\":\"GpuXidHardwareError\"",
        "\"effect\":\"NoSchedule\""); // NoExecute's eviction is ours: the exporter's claim would not survive the rule's
    NodeInfo node = h.node(NODE);
    assertThat(node.unschedulable()).as("the node is never cordoned").isFalse();
    assertThat(node.taints()).as("nor tainted").isEmpty();
    assertThat(h.server.evictionsGranted("ml", "trainer-3")).as("the GPU's pod evicted through the Eviction API")
        .isEqualTo(1);
    assertThat(h.server.deviceTaintEvictions("ml", "trainer-3")).isZero();
    assertThat(trainers()).as("the other seven keep running").containsExactly("trainer-0", "trainer-1", "trainer-2",
        "trainer-4", "trainer-5", "trainer-6", "trainer-7");
    assertThat(repairing.fenced()).singleElement().satisfies(g -> assertThat(g.uuid()).isEqualTo(DraObjects.uuid(NODE, 3)));
    assertThat(h.decisions(Reason.GPU_FENCED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("GPU " + DraObjects.uuid(NODE, 3) + " of " + NODE + " fenced: DeviceTaintRule gpu-remediator." + NODE
            + ".gpu-3"));
    assertThat(h.events("GpuFenced")).hasSize(1);

    Job reset = h.job("gpu_reset");
    assertThat(reset.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand()).as("the fenced GPU only")
        .endsWith("gpu-reset", DraObjects.uuid(NODE, 3));
    h.finishJob("gpu_reset", "Complete", "");
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    Job diagnose = h.job("diagnose");
    assertThat(diagnose.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .anySatisfy(env -> {
          assertThat(env.getName()).isEqualTo("NVIDIA_VISIBLE_DEVICES");
          assertThat(env.getValue()).isEqualTo(DraObjects.uuid(NODE, 3));
        });
    h.finishJob("diagnose", "Complete", "");
    h.look(NODE);

    assertThat(DraObjects.rules(h.client)).as("unfenced").isEmpty();
    assertThat(h.episode(NODE)).as("the episode is over").isNull();
    assertThat(h.decisions(Reason.GPU_UNFENCED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("GPU " + DraObjects.uuid(NODE, 3) + " of " + NODE + " unfenced"));
    assertThat(h.decisions(Reason.RELEASED)).hasSize(1);
    assertThat(h.node(NODE).unschedulable()).isFalse();
  }

  @Test
  void aDriversOwnTaintThatOutlivesTheRepairIsReported() {
    start("NoExecute");
    DraObjects.slice(h.client, NODE, 8, List.of(3)); // NVIDIA's driver tainted the GPU itself on the XID
    h.fire(xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    h.finishJob("gpu_reset", "Complete", "");
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    h.finishJob("diagnose", "Complete", "");
    h.look(NODE);
    String remains = "the driver's own taint [gpu.nvidia.com/xid=79:NoSchedule] is still on GPU " + DraObjects.uuid(NODE, 3)
        + " of " + NODE;
    assertThat(h.decisions(Reason.GPU_UNFENCED)).singleElement().satisfies(d -> assertThat(d.detail()).contains(remains));
    assertThat(h.events("DriverTaintRemains")).singleElement().satisfies(ev -> assertThat(ev.getMessage()).contains(remains));
    assertThat(DraObjects.rules(h.client)).isEmpty();
  }

  @Test
  void underNoScheduleTheResetWaitsUntilThePodUsingTheGpuFinished() {
    start("NoSchedule");
    h.fire(xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    h.look(NODE);
    assertThat(trainers()).as("nothing is evicted under NoSchedule").hasSize(8);
    assertThat(h.jobs("gpu_reset")).as("no reset while a pod holds the GPU").isEmpty();
    assertThat(h.decisions(Reason.GPU_IN_USE)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("ml/trainer-3 holds GPU " + DraObjects.uuid(NODE, 3)));

    h.client.pods().inNamespace("ml").withName("trainer-3").delete(); // it finished
    h.lookUntil(NODE, Stage.REPAIRING, 2);
    assertThat(h.jobs("gpu_reset")).hasSize(1);
  }

  @Test
  void aNodeThatPublishesNoSuchDeviceTakesTheNodePath() {
    start("NoExecute");
    h.fire(xidOn("gpu-node-1", 3)); // gpu-node-1 runs the device plugin: it publishes no ResourceSlice
    h.lookUntil("gpu-node-1", Stage.ESCALATED, 3);
    h.look("gpu-node-1");
    assertThat(h.decisions(Reason.GPU_NOT_PUBLISHED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("gpu-node-1 publishes no device with uuid or index " + DraObjects.uuid("gpu-node-1", 3)));
    assertThat(h.episode("gpu-node-1").playbook()).isEqualTo("gpu-node-reset");
    assertThat(h.node("gpu-node-1").unschedulable()).as("the node path cordons").isTrue();
    assertThat(DraObjects.rules(h.client)).isEmpty();
  }

  @Test
  void aSecondGpuOnAFencedNodeTakesTheNodePath() {
    start("NoSchedule");
    h.fire(xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    h.fire(xidOn(NODE, 5));
    h.look(NODE);
    h.look(NODE);
    assertThat(h.decisions(Reason.FENCED_PER_NODE)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("1 GPU(s) of " + NODE + " are fenced already; safety.max_fenced_per_node allows 1"));
    assertThat(DraObjects.rules(h.client)).as("one fence on the node").hasSize(1);
    assertThat(h.node(NODE).unschedulable()).as("the second GPU's episode escalated to the node path").isTrue();
  }

  @Test
  void aFenceTheGpuBudgetHasNoRoomForIsRefusedAtTheWebhookAndWritesNothing() {
    start("NoSchedule", new ClosedLoopHarness.Fencing("gpu.nvidia.com", new CountOrPercent(1, false), 1));
    DraObjects.slice(h.client, "gpu-node-1", 8);
    h.fire(xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    String version = h.client.nodes().withName("gpu-node-1").get().getMetadata().getResourceVersion();
    Decision refused = h.fire(xidOn("gpu-node-1", 2));
    assertThat(refused.reason()).isEqualTo(Reason.GPU_BUDGET_EXHAUSTED);
    assertThat(refused.detail()).contains("1 of 32 GPUs of the selected nodes are fenced or on unavailable nodes;"
        + " safety.max_unavailable_gpus 1 allows 1");
    h.look("gpu-node-1");
    h.look("gpu-node-1");
    assertThat(h.client.nodes().withName("gpu-node-1").get().getMetadata().getResourceVersion())
        .as("no write of the Node: not by the webhook, not by a look").isEqualTo(version);
    assertThat(h.node("gpu-node-1").ledger().episodes()).isEmpty();
    assertThat(DraObjects.rules(h.client)).hasSize(1);

    h.fire(xidOn("gpu-node-1", 2)); // Alertmanager sends it again: refused again, still nothing written
    assertThat(h.client.nodes().withName("gpu-node-1").get().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  void aDryRunFenceNamesTheDeviceAndTheRuleItWouldWriteAndWritesNothing() {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, "NoExecute").replace("    actions:\n      - fence_gpu",
        "    dry_run: true\n    actions:\n      - fence_gpu"), ClosedLoopHarness.Fencing.DEFAULT);
    DraObjects.slice(h.client, NODE, 8);
    String version = h.client.nodes().withName(NODE).get().getMetadata().getResourceVersion();
    Decision d = h.fire(xidOn(NODE, 3));
    assertThat(d.reason()).isEqualTo(Reason.DRY_RUN_PLAYBOOK);
    assertThat(d.detail()).contains("fence_gpu would fence device gpu.nvidia.com/" + NODE + "/gpu-3 (GPU "
        + DraObjects.uuid(NODE, 3) + ") with DeviceTaintRule gpu-remediator." + NODE + ".gpu-3"
        + " (gpu-remediator.io/unhealthy:NoExecute)");
    Decision none = h.fire(xidOn(NODE, 9));
    assertThat(none.detail()).contains("fence_gpu would find no device with uuid or index " + DraObjects.uuid(NODE, 9)
        + " in the ResourceSlices of gpu.nvidia.com on " + NODE + " (8 devices): escalate to gpu-node-reset");
    h.look(NODE);
    assertThat(DraObjects.rules(h.client)).isEmpty();
    assertThat(h.client.nodes().withName(NODE).get().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  void aRestartMidFenceNeverWritesASecondRule() {
    start("NoSchedule");
    h.fire(xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    h.stop();
    second = h.restarted(dir, String.format(PLAYBOOKS, "NoSchedule"), OutboundPorts.NONE);
    second.look(NODE);
    second.look(NODE);
    assertThat(DraObjects.rules(second.client)).hasSize(1);
    assertThat(second.episode(NODE).fenced()).hasSize(1);
  }

  @Test
  void aRuleTheLastInstanceWroteBeforeItsLedgerIsFoundNotDoubled() {
    start("NoSchedule");
    h.fire(xidOn(NODE, 3));
    h.stop(); // it died between writing the rule and recording the fence: the rule is there, the ledger knows nothing
    second = h.restarted(dir, String.format(PLAYBOOKS, "NoSchedule"), OutboundPorts.NONE);
    second.client.genericKubernetesResources(DraObjects.RULES).resource(Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: DeviceTaintRule
        metadata: {name: gpu-remediator.%s.gpu-3, labels: {gpu-remediator.io/managed: "true"}}
        spec:
          deviceSelector: {driver: gpu.nvidia.com, pool: %s, device: gpu-3}
          taint: {key: gpu-remediator.io/unhealthy, value: GpuXidHardwareError, effect: NoSchedule}
        """.formatted(NODE, NODE), GenericKubernetesResource.class)).create();
    second.lookUntil(NODE, Stage.FENCED, 2);
    assertThat(DraObjects.rules(second.client)).hasSize(1);
    assertThat(second.episode(NODE).fenced()).singleElement()
        .satisfies(g -> assertThat(g.rule()).isEqualTo("gpu-remediator." + NODE + ".gpu-3"));
  }

  /**
   * A ledger is written on the Node, and its kubelet can write it: one whose fence names another's DeviceTaintRule
   * (here a rule of the fabric team's, on another node's GPU) never gets that rule deleted; ours, found by our episode
   * label, is given back.
   */
  @Test
  void aLedgerNamingSomeoneElsesDeviceTaintRuleNeverDeletesIt() {
    start("NoExecute");
    h.fire(xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    h.client.genericKubernetesResources(DraObjects.RULES).resource(Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: DeviceTaintRule
        metadata: {name: fabric-team-hold, labels: {team: fabric}}
        spec:
          deviceSelector: {driver: gpu.nvidia.com, pool: gpu-node-7, device: gpu-0}
          taint: {key: example.com/hold, value: "yes", effect: NoSchedule}
        """, GenericKubernetesResource.class)).create();
    String ours = "gpu-remediator." + NODE + ".gpu-3";
    h.client.nodes().withName(NODE).edit(n -> {
      String ledger = n.getMetadata().getAnnotations().get("gpu-remediator.io/state");
      n.getMetadata().getAnnotations().put("gpu-remediator.io/state",
          SignedLedgers.sealed(NODE, SignedLedgers.ledger(ledger).replace(ours, "fabric-team-hold")));
      return n;
    });
    h.finishJob("gpu_reset", "Complete", "");
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    h.finishJob("diagnose", "Complete", "");
    h.look(NODE);
    assertThat(DraObjects.rules(h.client)).extracting(r -> r.getMetadata().getName()).as("theirs kept, ours given back")
        .containsExactly("fabric-team-hold");
  }

  @Test
  void aHumanWhoDeletesOurRuleEndsTheEpisode() {
    start("NoSchedule");
    h.fire(xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.FENCED, 2);
    h.client.genericKubernetesResources(DraObjects.RULES).withName("gpu-remediator." + NODE + ".gpu-3").delete();
    h.look(NODE);
    assertThat(h.episode(NODE)).isNull();
    assertThat(h.decisions(Reason.HUMAN_OVERRIDE)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("DeviceTaintRule gpu-remediator." + NODE + ".gpu-3 fencing GPU " + DraObjects.uuid(NODE, 3)
            + " was deleted"));
    assertThat(DraObjects.rules(h.client)).as("nothing is put back").isEmpty();
  }

  @Test
  void aDryRunFenceWritesNothingToResourceK8sIo() {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, "NoExecute").replace("on_fail: gpu-node-reset}",
        "on_fail: gpu-node-reset, dry_run: true}"), ClosedLoopHarness.Fencing.DEFAULT);
    DraObjects.slice(h.client, NODE, 8);
    DraObjects.podHolding(h.client, "ml", "trainer-3", NODE, 3);
    int before = h.server.requestLog().size();
    Decision d = h.fire(xidOn(NODE, 3));
    h.look(NODE);
    h.look(NODE);
    assertThat(d.actions()).anySatisfy(a -> assertThat(a.change()).contains("fence GPU " + DraObjects.uuid(NODE, 3)));
    assertThat(DraObjects.rules(h.client)).isEmpty();
    assertThat(h.server.requestLog().subList(before, h.server.requestLog().size())).noneMatch(r -> !r.startsWith("GET") && r.contains("resource.k8s.io"));
    assertThat(trainers()).containsExactly("trainer-3");
  }
}
