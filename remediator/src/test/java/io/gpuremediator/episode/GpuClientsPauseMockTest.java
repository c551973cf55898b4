package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.simapi.DaemonSetController;
import io.gpuremediator.simapi.JobKubelet;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default GPU reset on a GPU Operator node, through the closed loop against the emulated API server: DCGM's host
 * engine inside the operator's dcgm-exporter holds the GPUs, and {@code nvidia-smi -r} refuses "In use by another
 * client" while it runs (simapi's kubelet runs the reset Job's script against the fake nvidia-smi of recorded outputs,
 * and the exporter's pod as the recorded DaemonSet places it). The reset pauses the exporter by its deploy label, as
 * the operator's own pauses do, waits for its pod to leave, resets, and sets the label back: the exporter returns.
 */
class GpuClientsPauseMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String DEPLOY = "nvidia.com/gpu.deploy.dcgm-exporter";
  private static final String UUID = "GPU-8d3c1f2e-5a5f-aa66-7660-000000000003";
  @TempDir Path dir;
  private ClosedLoopHarness h;
  private JobKubelet kubelet;
  private DaemonSetController exporter;

  @AfterEach
  void close() {
    if (exporter != null) {
      exporter.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    if (h != null) {
      h.close();
    }
  }

  private void start(boolean operatorManaged) {
    h = new ClosedLoopHarness(dir, String.format(GpuResetMockTest.PLAYBOOKS, ""), OutboundPorts.NONE,
        new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    if (operatorManaged) {
      label("true");
      exporter = new DaemonSetController(h.server, Path.of("../tests/real/gpu-operator/0800_daemonset.yaml"),
          "gpu-operator").start();
      await().atMost(Duration.ofSeconds(20)).until(() -> exporter.runsOn(NODE));
    }
    kubelet = new JobKubelet(h.server, "gpu-remediator", Path.of("../simapi/node-tools"), Path.of("../tests/real"),
        dir.resolve("kubelet"), j -> "gpu_reset".equals(j.getMetadata().getLabels().get("gpu-remediator.io/step")))
        .start();
    kubelet.gpu(NODE, UUID, true, "none");
  }

  private void label(String value) {
    h.client.nodes().withName(NODE).edit(n -> {
      n.getMetadata().getLabels().put(DEPLOY, value);
      return n;
    });
  }

  private String deployLabel() {
    return h.client.nodes().withName(NODE).get().getMetadata().getLabels().get(DEPLOY);
  }

  /** Looks at the node until {@code done}, within a deadline: the kubelet and the DaemonSet controller run beside. */
  private void lookUntil(BooleanSupplier done) {
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
      h.look(NODE);
      return done.getAsBoolean();
    });
  }

  private List<Job> resetJobs() {
    return h.jobs("gpu_reset");
  }

  @Test
  void theExporterIsPausedForTheResetAndComesBackAfter() {
    start(true);
    h.fire(Alerts.xid(NODE, "48"));
    lookUntil(() -> !h.decisions(Reason.REPAIRED).isEmpty() || !h.decisions(Reason.RESET_REFUSED).isEmpty());

    assertThat(h.decisions(Reason.RESET_REFUSED)).as("DCGM held no GPU when the reset ran").isEmpty();
    assertThat(kubelet.nvidiaSmiCalls(NODE)).contains("-r -i 3");
    assertThat(kubelet.log(resetJobs().get(0).getMetadata().getName())).contains("was successfully reset.");
    assertThat(h.decisions(Reason.REPAIRED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("dcgm-exporter resumed (nvidia.com/gpu.deploy.*=true)"));
    assertThat(deployLabel()).isEqualTo("true");
    await().atMost(Duration.ofSeconds(20)).until(() -> exporter.history().size() >= 3);
    assertThat(exporter.history()).as("its pod left for the reset, and came back")
        .containsExactly("placed " + NODE, "removed " + NODE, "placed " + NODE);
    assertThat(h.decisions(Reason.REPAIR_STARTED)).as("one start, the Job's").hasSize(1);
    assertThat(h.podNotices("gpu-operator")).as("the exporter's pod, stopped for the reset, is told once").singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("is stopped (its DaemonSet paused) for a GPU reset on node "
            + NODE));
  }

  @Test
  void aDcgmTheOperatorDoesNotManageStillRefusesTheResetInTheToolsWords() {
    start(false);
    h.client.pods().inNamespace("monitoring").resource(new PodBuilder().withNewMetadata()
        .withName("nvidia-dcgm-exporter-7xk2p").withNamespace("monitoring").addNewOwnerReference().withApiVersion("apps/v1")
        .withKind("DaemonSet").withName("nvidia-dcgm-exporter").withUid("uid-own").withController(true)
        .endOwnerReference().endMetadata().withNewSpec().withNodeName(NODE).addNewContainer().withName("exporter")
        .withImage("nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04").endContainer().endSpec()
        .withNewStatus().withPhase("Running").endStatus().build()).create();
    h.fire(Alerts.xid(NODE, "48"));
    lookUntil(() -> !h.decisions(Reason.RESET_REFUSED).isEmpty());
    assertThat(h.decisions(Reason.RESET_REFUSED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("nvidia-smi refused the reset", "In use by another client"));
    assertThat(h.client.nodes().withName(NODE).get().getMetadata().getLabels()).doesNotContainKey(DEPLOY);
  }
}
