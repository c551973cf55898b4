package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Playbooks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every gpu_reset outcome, against the emulated API server over HTTP; the test plays the Job controller. */
class GpuResetMockTest {
  private static final String NODE = "gpu-node-0";
  static final String PLAYBOOKS = Playbooks.quarantining("gpu-reset", """
            - drain: {mode: evict, timeout: 30m, grace_period: 1m}
            - gpu_reset: {timeout: 10m%s}
            - diagnose: {image: "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", command: [dcgmi, diag, -r, "2"]}
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
        - name: gpu-reboot
          match: ['alertname="NeverFires"']
          actions:
            - label: {key: gpu-remediator.io/needs-human, value: "true"}
      """);
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  /** Quarantined and drained (nothing to move): the reset Job is created. */
  private Job resetting(String stepKeys, Alert alert) {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, stepKeys), OutboundPorts.NONE);
    h.fire(alert);
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    return h.job("gpu_reset");
  }

  @Test
  void theResetJobIsPrivilegedPinnedToTheNodeAndResetsTheAlertsGpu() {
    Job job = resetting("", Alerts.xid(NODE, "48"));
    assertThat(job.getSpec().getTemplate().getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(job.getSpec().getBackoffLimit()).isZero();
    assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(600L);
    assertThat(job.getSpec().getTemplate().getSpec().getHostPID()).as("a reset needs no host PIDs").isNull();
    assertThat(job.getSpec().getTemplate().getSpec().getTolerations()).extracting(Toleration::getKey)
        .contains("gpu-remediator.io/unhealthy", "node.kubernetes.io/unschedulable");
    Container c = job.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getName()).isEqualTo("gpu_reset".replace('_', '-'));
    assertThat(c.getCommand()).as("the default script: persistence mode off for the reset").startsWith("sh", "-c")
        .endsWith("gpu-reset", "3");
    assertThat(c.getCommand().get(2)).contains("-pm 0", "nvidia-smi -r \"$@\"", "-pm 1");
    assertThat(c.getSecurityContext().getPrivileged()).isTrue();
    assertThat(c.getEnv()).extracting(EnvVar::getName).containsExactly("NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_VISIBLE_DEVICES");
    assertThat(job.getMetadata().getLabels()).containsKey(EpisodeNames.JOB_EPISODE_LABEL)
        .containsEntry("gpu-remediator.io/step", "gpu_reset");
    h.look(NODE);
    h.look(NODE);
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).hasSize(1);
    assertThat(h.decisions(Reason.REPAIR_STARTED)).hasSize(1);
  }

  @Test
  void aPassingResetAndDiagnoseReturnTheNodeWithoutWaitingForTheAlert() {
    resetting("", Alerts.xid(NODE, "48"));
    h.finishJob("gpu_reset", "Complete", "");
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    assertThat(h.decisions(Reason.REPAIRED)).hasSize(1);
    h.finishJob("diagnose", "Complete", "");
    h.look(NODE);
    assertThat(h.episode(NODE)).as("the episode is over while its alert still fires").isNull();
    assertThat(h.node(NODE).unschedulable()).isFalse();
    assertThat(h.node(NODE).taints()).isEmpty();
    assertThat(h.decisions(Reason.RELEASED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("without waiting for its alert"));
    assertThat(h.node(NODE).ledger().history()).singleElement().satisfies(p -> assertThat(p.playbook()).isEqualTo("gpu-reset"));
    assertThat(h.ended).as("remediator_episode_duration_seconds{playbook,outcome,closed_by}")
        .containsExactly("gpu-reset released automatic");
    assertThat(h.repaired).as("remediator_episode_repair_seconds{playbook,step}: the reset alone, no drain")
        .containsExactly("gpu-reset gpu_reset");

    // Alertmanager resends the firing alert, then its resolution: the same episode, already handled.
    assertThat(h.fire(Alerts.xid(NODE, "48")).reason()).isEqualTo(Reason.DUPLICATE_EPISODE);
    assertThat(h.fire(Alerts.resolved(Alerts.xid(NODE, "48"))).reason()).isEqualTo(Reason.DUPLICATE_EPISODE);
    assertThat(h.node(NODE).unschedulable()).isFalse();
  }

  @Test
  void aFailedResetEscalatesToOnFail() {
    resetting(", on_fail: gpu-reboot", Alerts.xid(NODE, "48"));
    h.finishJob("gpu_reset", "Failed", "BackoffLimitExceeded");
    Episode escalated = h.lookUntil(NODE, Stage.ESCALATED, 1);
    assertThat(escalated.playbook()).isEqualTo("gpu-reboot");
    assertThat(escalated.matched()).as("still counted as the reset playbook's episode").isEqualTo("gpu-reset");
    assertThat(h.decisions(Reason.ESCALATED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("GPU reset job").contains("failed").contains("escalated to gpu-reboot"));
  }

  @Test
  void aResetNvidiaSmiRefusedIsResetRefusedInTheToolsWords() throws Exception {
    Job job = resetting(", on_fail: gpu-reboot", Alerts.xid(NODE, "48"));
    h.client.pods().inNamespace("gpu-remediator").resource(new PodBuilder().withNewMetadata().withName("reset-pod")
        .withNamespace("gpu-remediator").withLabels(Map.of("job-name", job.getMetadata().getName())).endMetadata()
        .withNewSpec().withNodeName(NODE).endSpec().build()).create();
    h.server.log("gpu-remediator", "reset-pod", Files.readString(Path.of("../tests/real/nvidia-smi/"
        + "reset-refused-persistence-mode.txt")));
    h.finishJob("gpu_reset", "Failed", "BackoffLimitExceeded");
    assertThat(h.lookUntil(NODE, Stage.ESCALATED, 1).playbook()).isEqualTo("gpu-reboot");
    assertThat(h.decisions(Reason.RESET_REFUSED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("nvidia-smi refused the reset: \"The following GPUs could not be reset: GPU 00000000:1A:00.0: In use by"
            + " another client\"").contains("then escalated to gpu-reboot"));
  }

  @Test
  void aResetThatNeverEndsFailsAfterItsTimeoutAndAHumanDecides() {
    resetting("", Alerts.xid(NODE, "48"));
    h.clock.advance(Duration.ofMinutes(13));
    Episode failed = h.lookUntil(NODE, Stage.REPAIR_FAILED, 1);
    assertThat(failed.progress().note()).contains("did not finish within 10m");
    assertThat(h.decisions(Reason.REPAIR_FAILED)).hasSize(1);
    assertThat(h.node(NODE).unschedulable()).as("never released after a failed repair").isTrue();
  }

  @Test
  void aTimedOutResetFailsTheStep() {
    resetting("", Alerts.xid(NODE, "48"));
    h.finishJob("gpu_reset", "Failed", "DeadlineExceeded");
    assertThat(h.lookUntil(NODE, Stage.REPAIR_FAILED, 1).progress().note()).contains("timed out after 10m");
  }

  @Test
  void aDeletedResetJobFailsTheStepAndNeverPassesIt() {
    Job job = resetting("", Alerts.xid(NODE, "48"));
    h.client.batch().v1().jobs().inNamespace("gpu-remediator").withName(job.getMetadata().getName()).delete();
    assertThat(h.lookUntil(NODE, Stage.REPAIR_FAILED, 2).progress().note()).contains("is gone");
    assertThat(h.node(NODE).unschedulable()).isTrue();
  }

  @Test
  void withoutAGpuLabelEveryGpuIsReset() {
    Alert alert = Alerts.xid(NODE, "48");
    Map<String, String> labels = new HashMap<>(alert.labels());
    labels.remove("gpu");
    Job job = resetting("", Alerts.withLabels(alert, labels));
    assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand()).endsWith("gpu-reset", "");
  }

  @Test
  void aGpuLabelThatIsNotAnIndexResetsEveryGpuRatherThanStoppingTheRepair() {
    Alert alert = Alerts.xid(NODE, "48");
    Map<String, String> labels = new HashMap<>(alert.labels());
    labels.put("gpu", "unknown");
    Job job = resetting("", Alerts.withLabels(alert, labels));
    assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand()).endsWith("gpu-reset", "");
  }

  @Test
  void gpusThatRenderToSomethingOtherThanIndicesAreRefusedBeforeTheNodeIsTouched() {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, ", gpus: \"{{ labels.uuid }}\""), OutboundPorts.NONE);
    Alert alert = Alerts.xid(NODE, "48");
    Map<String, String> labels = new HashMap<>(alert.labels());
    labels.put("uuid", "GPU-8d3c1f2e");
    assertThat(h.fire(Alerts.withLabels(alert, labels))).satisfies(d -> {
      assertThat(d.reason()).isEqualTo(Reason.TEMPLATE_INVALID);
      assertThat(d.detail()).contains("comma-separated GPU indices");
    });
    assertThat(h.episode(NODE)).isNull();
    assertThat(h.node(NODE).unschedulable()).isFalse();
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).isEmpty();
  }
}
