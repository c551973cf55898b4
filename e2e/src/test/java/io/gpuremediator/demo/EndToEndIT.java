package io.gpuremediator.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.pipeline.Layout;
import io.gpuremediator.pipeline.Options;
import io.gpuremediator.pipeline.Pipeline;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The demo's story on the real pipeline: the simulator, the simulated cluster over a kubeconfig,
 * Prometheus with rules/ and dcgm/prometheus.yml, Alertmanager with alerts/alertmanager.yml, and the
 * remediator jar with the shipped playbooks. A rule renamed, the route removed or a playbook missing
 * breaks one of its chapters. The timeline is printed; the processes' logs stay in target/e2e/run.
 */
class EndToEndIT {

  @Test
  void theStoryPlaysOutOnTheRealPipelineAndEveryProcessIsStoppedByPid() throws Exception {
    Layout layout = new Layout(Path.of(".."), Path.of("target/e2e"));
    Files.createDirectories(layout.work());
    LibraryLog.to(layout.work().resolve("libraries.log"));
    Timeline timeline = new Timeline(System.out, false);
    Pipeline pipeline = Pipeline.start(layout, Options.demo(false), timeline);
    StoryResult r;
    try {
      r = new Story(pipeline, timeline).play();
    } finally {
      pipeline.close();
    }
    assertThat(pipeline.stillListening()).as("ports still open after every process was stopped").isEmpty();
    assertThat(pipeline.processes()).allSatisfy(s -> assertThat(s.process().isAlive()).as(s.name()).isFalse());

    assertThat(r.xidDecision()).as("XID 79: quarantined by the gpu-xid-reboot playbook").isEqualTo("applied/actions_applied");
    assertThat(r.xidDrained()).as("the training worker evicted once its PodDisruptionBudget allowed").isTrue();
    assertThat(r.xidBack()).as("XID 79: rebooted, diagnosed, back in service").isNotNull();
    assertThat(r.xidEvidenceFirst()).as("XID 79: the evidence Job created before the reboot was asked").isTrue();
    assertThat(r.xidEvidenceStored()).as("XID 79: the report stored on the claim before the reboot")
        .contains("completed, its report stored at pvc/gpu-remediator-evidence:");
    assertThat(r.resetBack()).as("XID 48: GPU reset, diagnosed, back in service").isNotNull();
    assertThat(r.driverPlaybook()).as("the driver's recovery action 1 takes the reset playbook").isEqualTo("gpu-recovery-reset");
    assertThat(r.driverResetBack()).as("the driver's recovery action: GPU reset, diagnosed, back in service").isNotNull();
    assertThat(r.draNodeCordoned()).as("XID 48 on a DRA node: one GPU fenced, the node never cordoned").isFalse();
    assertThat(r.draOthersRunning()).as("XID 48 on a DRA node: its 7 other GPUs' pods kept running").isEqualTo(7);
    assertThat(r.draExporterKept()).as("XID 48 on a DRA node: the v26.7 exporter kept running and exporting the fenced GPU")
        .isTrue();
    assertThat(r.spareReleased()).as("a quarantine releases the pool's spare").isEqualTo("gpu-node-27");
    assertThat(r.spareBeforeDrained()).as("the spare takes work before the failed node's drain ends").isTrue();
    assertThat(r.spareLandedOn()).as("the evicted worker lands on the released spare").isEqualTo("gpu-node-27");
    assertThat(r.spareRefilled()).as("the repaired node refills the pool").isTrue();
    assertThat(r.sweepFoundIdle()).as("a sweep finds the idle node's bad GPU, an episode opened, no job ever on it").isTrue();
    assertThat(r.sweepBack()).as("that node, rebooted as dcgmi diag said, returns to service").isTrue();
    assertThat(r.lostReleased()).as("the node whose GPU came back passed diagnostics and returned to service").isTrue();
    assertThat(r.lost2Escalated()).as("the node that failed diagnostics stays out, escalated").isTrue();
    assertThat(r.replacedThrough()).as("the node beyond repair: its NodeClaim deleted").contains("NodeClaim ")
        .contains(" deleted: Karpenter drains and terminates");
    assertThat(r.replacement()).as("Karpenter launched a node in its place").isNotNull();
    assertThat(r.replacementEarned()).as("the new node passed its pre-flight before taking work").isTrue();
    assertThat(r.infinibandBack()).as("the InfiniBand port's node quarantined, then back once the port was").isTrue();
    assertThat(r.notifications()).as("the on-call told which port")
        .anySatisfy(m -> assertThat(m).contains("port mlx5_2/1 is down"));
    assertThat(r.appXidReceivers()).as("an application XID goes to people").containsExactly("gpu-oncall");
    assertThat(r.appXidDecisions()).as("the remediator never sees an application XID").isZero();
    assertThat(r.appXidNodeTouched()).isFalse();
    assertThat(r.lostFaultToQuarantine()).as("GpuCountDropped waits for: 2m").isGreaterThanOrEqualTo(Duration.ofMinutes(2));
    assertThat(r.fabricIncident()).as("three trays of one clique faulting together: one incident").isTrue();
    assertThat(r.fabricPages()).as("the incident paged once").isEqualTo(1);
    assertThat(r.fabricRepaired()).as("no reset or reboot of a tray fixes a fabric fault").isFalse();
    assertThat(r.fabricDecisions()).hasSize(3).containsValue("suppressed/domain_incident");
    assertThat(r.breakerState()).isEqualTo("open");
    assertThat(r.stormDecisions()).hasSize(10).allSatisfy((node, outcome) -> assertThat(outcome).startsWith("suppressed/"))
        .containsValue("suppressed/breaker_open");
    assertThat(r.stormNodesTouched()).as("storm nodes tainted or cordoned").isEmpty();
    assertThat(r.xidSilenced()).as("the quarantined node's other alerts silenced in Alertmanager").isTrue();
    assertThat(r.lostSilenceExpired()).as("the released node's silence expired").isTrue();
    assertThat(r.notifications()).as("gpu-oncall told of the quarantines and stage changes")
        .anySatisfy(m -> assertThat(m).contains(" quarantined by gpu-xid-reboot: XID 79"))
        .anySatisfy(m -> assertThat(m).contains(" is drained (gpu-xid-reboot)"))
        .anySatisfy(m -> assertThat(m).contains("(gpu-xid-reboot): evidence job gpu-remediator/gpu-evidence-"))
        .anySatisfy(m -> assertThat(m).contains(" is released (gpu-xid-reset)"))
        .anySatisfy(m -> assertThat(m).contains(" is released (gpu-count-dropped)"))
        .anySatisfy(m -> assertThat(m).contains(" needs a human: diagnostics failed"));
    System.out.println("end-to-end fault-to-quarantine, XID 79 (simulator change to taint visible in the API): "
        + r.xidFaultToQuarantine().toMillis() + " ms; XID 79 to back in service after a reboot: " + r.xidBack().toMillis()
        + " ms; XID 48 to back in service after a GPU reset: " + r.resetBack().toMillis() + " ms; the driver's recovery action to back in"
        + " service after a GPU reset: " + r.driverResetBack().toMillis() + " ms");
  }
}
