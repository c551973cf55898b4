package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code defer_to} through the closed loop against the emulated API server: on EKS, the node monitoring agent's
 * {@code AcceleratedHardwareReady=False} hands the node to node auto repair. A node that shows it gets no episode of
 * ours (ignored/deferred, untouched); a running episode whose node comes to show it finishes the step under way (the
 * drain) and stops before the next (no reboot asked), for a human, decided deferred.
 */
class DeferToMockTest {
  private static final String NODE = "gpu-node-0";
  private static final DeferRule EKS = new DeferRule.Condition("AcceleratedHardwareReady", "False");

  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  private void eksMarks(String node) {
    h.client.nodes().withName(node).editStatus(n -> {
      n.getStatus().getConditions().add(new NodeConditionBuilder().withType("AcceleratedHardwareReady").withStatus("False")
          .withReason("NvidiaXID79Error").withMessage("NVIDIA XID 79").withLastTransitionTime("2026-11-22T10:00:30Z")
          .withLastHeartbeatTime("2026-11-22T10:00:30Z").build());
      return n;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> EKS.matches(h.node(node)));
  }

  @Test
  void aNodeAnotherSystemRepairsGetsNoEpisodeOfOurs() {
    h = new ClosedLoopHarness(dir, String.format(RebootJobMockTest.PLAYBOOKS, "job", ""), List.of(EKS));
    eksMarks(NODE);
    assertThat(h.fire(Alerts.xid(NODE, "79")).reason()).isEqualTo(Reason.DEFERRED);
    assertThat(h.decisions(Reason.DEFERRED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("shows condition AcceleratedHardwareReady=False").contains("another system owns its repair"));
    assertThat(h.node(NODE).unschedulable()).isFalse();
    assertThat(h.node(NODE).taints()).isEmpty();
    assertThat(h.episode(NODE)).isNull();
    assertThat(h.fire(Alerts.xid("gpu-node-1", "79")).reason()).as("a node without the sign").isEqualTo(Reason.ACTIONS_APPLIED);
  }

  @Test
  void aRunningEpisodeStopsBeforeItsNextStepOnceItsNodeIsAnotherSystems() {
    h = new ClosedLoopHarness(dir, String.format(RebootJobMockTest.PLAYBOOKS, "job", ""), List.of(EKS));
    Nodes.runningPod(h.client, "ml", "trainer", NODE, Map.of("app", "llm"));
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINING, 2);
    eksMarks(NODE);
    Episode stopped = h.lookUntil(NODE, Stage.NEEDS_HUMAN, 4);
    assertThat(h.decisions(Reason.DRAINED)).as("the step under way went on to its end").hasSize(1);
    assertThat(stopped.playbook()).isEqualTo("gpu-reboot");
    assertThat(h.decisions(Reason.DEFERRED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("shows condition AcceleratedHardwareReady=False").contains("our steps stop before the next"));
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).as("no reboot asked").isEmpty();
    assertThat(h.node(NODE).unschedulable()).as("the node as it is").isTrue();
  }
}
