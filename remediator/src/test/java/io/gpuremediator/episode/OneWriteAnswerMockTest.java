package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.testing.Alerts;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A firing alert whose playbook goes on to a long step is answered once one write has made its node safe (taint,
 * cordon, the ledger): a webhook naming a thousand nodes then fits Alertmanager's deadline at an operator's API throttle.
 * The condition, a status write of its own, and the Events follow from the loop, in playbook order, before its drain.
 */
class OneWriteAnswerMockTest {
  private static final String NODE = "gpu-node-0";
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  @Test
  void theAnswerWaitsForTheOneWriteThatMakesTheNodeSafeAndTheLoopWritesTheConditionBeforeTheDrain() {
    h = ClosedLoopHarness.shipped(dir, OutboundPorts.NONE);
    int before = h.server.requestLog().size();
    Decision d = h.fire(Alerts.xid(NODE, "48", "reset_gpu"));
    assertThat(d.reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(d.actions()).extracting(ActionRecord::type, a -> a.outcome().code()).startsWith(
        Tuple.tuple("taint", "applied"), Tuple.tuple("cordon", "applied"), Tuple.tuple("condition", "pending"),
        Tuple.tuple("event", "pending"));
    assertThat(nodeWrites(before)).as("one write of the node before the answer").containsExactly("PUT /api/v1/nodes/" + NODE);
    assertThat(h.node(NODE).unschedulable()).isTrue();
    assertThat(h.node(NODE).taints()).isNotEmpty();
    assertThat(h.node(NODE).condition("GpuHealthy")).as("not yet: the loop writes it").isEmpty();
    assertThat(h.episode(NODE).progress().next()).as("the loop takes over at the condition").isEqualTo(2);

    int answered = h.server.requestLog().size();
    h.look(NODE);
    assertThat(h.node(NODE).condition("GpuHealthy").orElseThrow().status()).isEqualTo("False");
    assertThat(h.events("GpuXidHardwareError")).hasSize(1);
    List<String> loop = nodeWrites(answered);
    assertThat(loop).as("the condition before the drain's start").first().isEqualTo("PUT /api/v1/nodes/" + NODE + "/status");
    assertThat(h.decisions(Reason.DRAIN_STARTED)).as("then the drain, in the same look").hasSize(1);
  }

  private List<String> nodeWrites(int from) {
    List<String> log = h.server.requestLog();
    return log.subList(from, log.size()).stream().filter(r -> r.startsWith("PUT /api/v1/nodes/")).toList();
  }
}
