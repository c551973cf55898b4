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
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code defer_to} through the closed loop against the emulated API server: on EKS, the node monitoring agent's
 * {@code AcceleratedHardwareReady=False} hands the node to node auto repair. A node that shows it gets no episode of
 * ours (ignored/deferred, untouched); a running episode whose node comes to show it finishes the step under way (the
 * drain) and is deferred before the next (no reboot asked); the other repairer's reboot and cleared condition, or its
 * replacement, hand the node back; a deadline with no repair seen takes it over.
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
  void aRunningEpisodeIsDeferredBeforeItsNextStepOnceItsNodeIsAnotherSystems() {
    Episode deferred = deferredWhileDraining();
    assertThat(h.decisions(Reason.DRAINED)).as("the step under way went on to its end").hasSize(1);
    assertThat(deferred.playbook()).isEqualTo("gpu-reboot");
    assertThat(h.decisions(Reason.DEFERRED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("shows condition AcceleratedHardwareReady=False").contains("our steps stop before the next"));
    h.clock.advance(Duration.ofDays(3));
    h.look(NODE);
    assertThat(h.episode(NODE).progress().stage()).as("no deadline: as long as it takes").isEqualTo(Stage.DEFERRED);
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).as("no reboot asked").isEmpty();
    assertThat(h.node(NODE).unschedulable()).as("the node as it is").isTrue();
  }

  /**
   * EKS node auto repair reboots the node (its bootID changes) and the node monitoring agent clears its condition: the
   * node is handed back. Our quarantine (taint and cordon) is lifted, though the playbook has no on_resolved, and the
   * episode closes {@code closed_by="other"}, with no reboot of ours.
   */
  @Test
  void aNodeTheOtherRepairerRebootedAndClearedIsHandedBackWithOurCordonLifted() {
    deferredWhileDraining();
    Nodes.booted(h.client, NODE, NODE + "-boot-2", true);
    h.look(NODE);
    assertThat(h.episode(NODE)).as("a reboot, the condition still False: a repair under way").isNotNull();
    assertThat(h.episode(NODE).progress().note()).contains("rebooted (boot ID gpu-node-0-boot-2)");
    eksClears(NODE);
    h.look(NODE);
    assertThat(h.episode(NODE)).as("handed back").isNull();
    assertThat(h.decisions(Reason.HANDED_BACK)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("the sign is gone").contains("the release steps of gpu-reboot ran"));
    assertThat(h.node(NODE).unschedulable()).as("our cordon lifted").isFalse();
    assertThat(h.node(NODE).taints()).as("our taint lifted").isEmpty();
    assertThat(h.ended).containsExactly("gpu-reboot released other");
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).as("no reboot of ours").isEmpty();
  }

  /**
   * A sign with a deadline quarantines a node that already shows it (the episode's immediate steps, inside every budget)
   * and defers it. Karpenter #2833: the repair never fires; past the deadline, with no reboot, no replacement and the
   * condition still there, our episode takes the node over and goes on from its drain.
   */
  @Test
  void aDeferralWithNoRepairBeforeItsDeadlineIsTakenOver() {
    DeferRule eks = new DeferRule.Condition("AcceleratedHardwareReady", "False",
        Optional.of(new DeferRule.Deadline(Duration.ofMinutes(30), DeferRule.Then.TAKE_OVER)));
    h = new ClosedLoopHarness(dir, String.format(RebootJobMockTest.PLAYBOOKS, "job", ""), List.of(eks));
    eksMarks(NODE);
    assertThat(h.fire(Alerts.xid(NODE, "79")).reason()).as("quarantined first").isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(h.node(NODE).unschedulable()).isTrue();
    h.lookUntil(NODE, Stage.DEFERRED, 3);
    h.clock.advance(Duration.ofMinutes(29));
    h.look(NODE);
    assertThat(h.episode(NODE).progress().stage()).as("inside the deadline").isEqualTo(Stage.DEFERRED);
    h.clock.advance(Duration.ofMinutes(2));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(h.decisions(Reason.DEFERRAL_TAKEN_OVER)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("still shows condition AcceleratedHardwareReady=False 30m after it was deferred, with no repair seen")
        .contains("our episode goes on from step 3 of gpu-reboot"));
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).as("our reboot, once taken over")
        .hasSize(1);
    assertThat(h.decisions(Reason.DEFERRED)).as("never deferred again").hasSize(1);
  }

  /**
   * A restart while deferred (invariant 7): the new instance finds the episode deferred in the ledger, counts the
   * deadline from the deferral, not from its own start, and takes the node over once, asking for one reboot.
   */
  @Test
  void aRestartKeepsTheDeferralAndItsDeadline() {
    DeferRule eks = new DeferRule.Condition("AcceleratedHardwareReady", "False",
        Optional.of(new DeferRule.Deadline(Duration.ofMinutes(30), DeferRule.Then.TAKE_OVER)));
    String playbooks = String.format(RebootJobMockTest.PLAYBOOKS, "job", "");
    h = new ClosedLoopHarness(dir, playbooks, List.of(eks));
    eksMarks(NODE);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DEFERRED, 3);
    h.clock.advance(Duration.ofMinutes(20));
    ClosedLoopHarness second = h.restarted(dir, playbooks, List.of(eks));
    second.look(NODE);
    assertThat(second.episode(NODE).progress().stage()).as("20m in: still deferred").isEqualTo(Stage.DEFERRED);
    h.clock.advance(Duration.ofMinutes(11));
    second.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(second.decisions(Reason.DEFERRAL_TAKEN_OVER)).as("31m after the deferral, not after the restart")
        .hasSize(1);
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).hasSize(1);
  }

  /** The other repairer replaces the deferred node (Karpenter deletes the Node): the episode is over, closed by it. */
  @Test
  void aDeferredNodeTheOtherRepairerReplacedClosesItsEpisodeClosedByOther() {
    deferredWhileDraining();
    h.client.nodes().withName(NODE).delete();
    h.look(NODE);
    assertThat(h.decisions(Reason.HANDED_BACK)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("deferred to another repairer (defer_to): it replaced the node"));
    assertThat(h.ended).containsExactly("gpu-reboot replaced other");
  }

  /** An episode draining its node when EKS marks it: the drain goes on to its end, then the episode is deferred. */
  private Episode deferredWhileDraining() {
    h = new ClosedLoopHarness(dir, String.format(RebootJobMockTest.PLAYBOOKS, "job", ""), List.of(EKS));
    Nodes.runningPod(h.client, "ml", "trainer", NODE, Map.of("app", "llm"));
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINING, 2);
    eksMarks(NODE);
    return h.lookUntil(NODE, Stage.DEFERRED, 4);
  }

  private void eksClears(String node) {
    h.client.nodes().withName(node).editStatus(n -> {
      n.getStatus().getConditions().stream().filter(c -> c.getType().equals("AcceleratedHardwareReady"))
          .forEach(c -> c.setStatus("True"));
      return n;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> !EKS.matches(h.node(node)));
  }
}
