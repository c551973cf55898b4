package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reboot step by a privileged Job, against the emulated API server over HTTP; the test plays the kubelet (a new
 * bootID, NotReady then Ready) and the Job controller. Done only on a new bootID and Ready; asked once per attempt.
 */
class RebootJobMockTest {
  private static final String NODE = "gpu-node-0";
  static final String PLAYBOOKS = Playbooks.quarantining("gpu-reboot", """
            - drain: {mode: evict, timeout: 30m, grace_period: 1m}
            - reboot: {method: %s, timeout: 30m%s}
            - diagnose: {image: "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", command: [dcgmi, diag, -r, "2"]}
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
        - name: gpu-repeat-offender
          match: ['alertname="NeverFires"']
          actions:
            - label: {key: gpu-remediator.io/needs-human, value: "true"}
      """);
  @TempDir Path dir;
  /** Closes the instances restarted over it ({@link #second}) first. */
  @AutoClose private ClosedLoopHarness h;
  private ClosedLoopHarness second;

  private Job rebooting(String onFail) {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, "job", onFail), OutboundPorts.NONE);
    h.fire(Alerts.xid(NODE, "79"));
    Episode e = h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(e.progress().task().orElseThrow().handle()).isEqualTo("boot=" + NODE + "-boot-1 sent");
    return h.job("reboot");
  }

  @Test
  void theRebootJobEntersTheHostsNamespacesAndIsAskedOnce() {
    Job job = rebooting("");
    assertThat(job.getSpec().getTemplate().getSpec().getHostPID()).isTrue();
    assertThat(job.getSpec().getTemplate().getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(job.getSpec().getBackoffLimit()).isZero();
    Container c = job.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getSecurityContext().getPrivileged()).isTrue();
    assertThat(c.getCommand()).containsExactly("nsenter", "-t", "1", "-m", "-u", "-i", "-n", "-p", "--", "systemctl", "reboot");
    assertThat(job.getMetadata().getLabels()).containsEntry("gpu-remediator.io/step", "reboot");
    h.look(NODE);
    h.finishJob("reboot", "Failed", "BackoffLimitExceeded"); // its own outcome does not matter
    h.look(NODE);
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).hasSize(1);
    assertThat(h.decisions(Reason.REPAIR_STARTED)).hasSize(1);
    assertThat(h.episode(NODE).progress().stage()).isEqualTo(Stage.REPAIRING);
  }

  @Test
  void doneOnlyWhenTheNodeIsReadyWithANewBootId() {
    rebooting("");
    Nodes.booted(h.client, NODE, NODE + "-boot-1", false); // the kubelet stopped: NotReady, same boot
    h.look(NODE);
    assertThat(h.episode(NODE).progress().stage()).isEqualTo(Stage.REPAIRING);
    Nodes.booted(h.client, NODE, NODE + "-boot-2", false); // booted, kubelet not Ready yet
    h.look(NODE);
    assertThat(h.episode(NODE).progress()).satisfies(p -> {
      assertThat(p.stage()).isEqualTo(Stage.REPAIRING);
      assertThat(p.note()).contains("not Ready yet");
    });
    Nodes.booted(h.client, NODE, NODE + "-boot-2", true);
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    assertThat(h.decisions(Reason.REPAIRED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("came back Ready with a new bootID"));
    h.finishJob("diagnose", "Complete", "");
    h.look(NODE);
    assertThat(h.episode(NODE)).as("back in service without waiting for the alert").isNull();
    assertThat(h.node(NODE).unschedulable()).isFalse();
  }

  @Test
  void aNodeThatNeverComesBackFailsAtTheTimeoutAndEscalates() {
    rebooting(", on_fail: gpu-repeat-offender");
    Nodes.booted(h.client, NODE, NODE + "-boot-1", false);
    h.clock.advance(Duration.ofMinutes(31));
    Episode escalated = h.lookUntil(NODE, Stage.ESCALATED, 1);
    assertThat(escalated.playbook()).isEqualTo("gpu-repeat-offender");
    assertThat(h.decisions(Reason.ESCALATED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("did not come back Ready with a new bootID within 30m").contains("bootID unchanged"));
    // Its own reason too, as a decision and an Event, not only the escalation that answers it.
    assertThat(h.decisions(Reason.REBOOT_TIMEOUT)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("within 30m").contains("then escalated to gpu-repeat-offender"));
    assertThat(h.events("RebootTimeout")).singleElement().satisfies(ev -> assertThat(ev.getMessage())
        .startsWith("repair_failed: ").contains("did not come back Ready"));
  }

  @Test
  void aNodeThatNeverComesBackWithoutOnFailWaitsForAHuman() {
    rebooting("");
    h.clock.advance(Duration.ofMinutes(31));
    h.lookUntil(NODE, Stage.REPAIR_FAILED, 1);
    assertThat(h.decisions(Reason.REBOOT_TIMEOUT)).hasSize(1);
    assertThat(h.node(NODE).unschedulable()).isTrue();
  }

  @Test
  void aNodeDeletedWhileRebootingEndsItsEpisodeOnce() {
    rebooting("");
    h.client.nodes().withName(NODE).delete();
    h.look(NODE);
    h.look(NODE);
    assertThat(h.decisions(Reason.NODE_DELETED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("deleted while reboot was under way"));
    assertThat(h.decisions(Reason.REPAIR_STARTED)).hasSize(1);
  }

  @Test
  void aRestartMidRebootNeverAsksAgainAndFinishesOnce() {
    rebooting("");
    h.stop();
    second = h.restarted(dir, String.format(PLAYBOOKS, "job", ""), OutboundPorts.NONE);
    second.look(NODE);
    Nodes.booted(second.client, NODE, NODE + "-boot-2", true);
    second.lookUntil(NODE, Stage.DIAGNOSING, 2);
    assertThat(second.client.batch().v1().jobs().inNamespace("gpu-remediator").withLabel("gpu-remediator.io/step", "reboot")
        .list().getItems()).hasSize(1);
    assertThat(h.decisions(Reason.REPAIR_STARTED).size() + second.decisions(Reason.REPAIR_STARTED).size()).isEqualTo(1);
    assertThat(second.decisions(Reason.REPAIRED)).hasSize(1);
  }
}
