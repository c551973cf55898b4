package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.state.PastEpisode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped ladder, against the emulated API server over HTTP, the test playing the Job controller and the kubelet:
 * a reset that fails escalates to a reboot, a passing diagnose returns the node; the same node failing twice more in a
 * week is handed to the replace playbook instead of a fourth repair.
 */
class LadderMockTest {
  private static final String NODE = "gpu-node-0";
  @TempDir Path dir;
  private ClosedLoopHarness h;
  private int boots = 1;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  /** The XID alert again, a new episode: started now. */
  private Alert xid(String xid, String action) {
    return Alerts.startingAt(Alerts.xid(NODE, xid, action), h.clock.instant());
  }


  /** The reboot Job's pod dies with the node; the kubelet comes back: a new bootID, Ready. */
  private void rebootHappens() {
    h.lookUntil(NODE, Stage.DRAINED, 3);
    h.finishJob("collect", "Complete", ""); // the reboot waits for its evidence
    h.lookUntil(NODE, Stage.REPAIRING, 2);
    h.finishJob("reboot", "Failed", "BackoffLimitExceeded");
    Nodes.booted(h.client, NODE, NODE + "-boot-" + ++boots, true);
  }

  private void diagnosticsPass() {
    h.lookUntil(NODE, Stage.DIAGNOSING, 3);
    h.finishJob("diagnose", "Complete", "");
    h.look(NODE);
    assertThat(h.episode(NODE)).as("back in service without waiting for the alert").isNull();
    assertThat(h.node(NODE).unschedulable()).isFalse();
    assertThat(h.node(NODE).taints()).isEmpty();
  }

  @Test
  void aFailedResetIsRebootedAndReleasedAndTheThirdEpisodeInAWeekIsReplacedNotRepairedAgain() {
    h = ClosedLoopHarness.shipped(dir, OutboundPorts.NONE);

    // Episode 1: XID 48, reset class. The reset fails: the reboot playbook takes over, the node comes back and passes.
    assertThat(h.fire(xid("48", "reset_gpu")).playbook()).isEqualTo("gpu-xid-reset");
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(h.job("gpu_reset").getSpec().getTemplate().getSpec().getContainers().get(0).getCommand())
        .endsWith("gpu-reset", "3");
    h.finishJob("gpu_reset", "Failed", "BackoffLimitExceeded");
    rebootHappens();
    assertThat(h.decisions(Reason.ESCALATED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("GPU reset job").contains("escalated to gpu-xid-reboot"));
    diagnosticsPass();
    assertThat(h.node(NODE).ledger().history()).singleElement().satisfies(p -> {
      assertThat(p.playbook()).isEqualTo("gpu-xid-reboot");
      assertThat(p.matched()).isEqualTo("gpu-xid-reset");
    });

    // Episode 2, a day later: XID 79, reboot class. Rebooted, passes, back.
    h.clock.advance(Duration.ofDays(1));
    assertThat(h.fire(xid("79", "reboot")).playbook()).isEqualTo("gpu-xid-reboot");
    rebootHappens();
    diagnosticsPass();

    // Episode 3, a day later: XID 48 again. The third in a week: replaced, never a fourth repair.
    h.clock.advance(Duration.ofDays(1));
    assertThat(h.fire(xid("48", "reset_gpu"))).satisfies(d -> {
      assertThat(d.playbook()).isEqualTo("gpu-repeat-offender");
      assertThat(d.detail()).contains("escalated from gpu-xid-reset (episode 3 within 168h)");
    });
    h.lookUntil(NODE, Stage.NEEDS_HUMAN, 3); // no cloud configured here: the replacement needs a human
    assertThat(h.decisions(Reason.REPLACE_FAILED)).hasSize(1);
    assertThat(h.jobs("gpu_reset")).hasSize(1);
    assertThat(h.jobs("reboot")).hasSize(2);
    assertThat(h.decisions(Reason.REPAIR_STARTED)).as("one reset, two reboots, in three episodes").hasSize(3);
    assertThat(h.node(NODE).unschedulable()).as("kept out for the human").isTrue();
    assertThat(h.node(NODE).ledger().history()).extracting(PastEpisode::matched)
        .containsExactly("gpu-xid-reset", "gpu-xid-reboot");
  }
}
