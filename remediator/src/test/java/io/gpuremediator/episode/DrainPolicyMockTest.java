package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Playbooks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain's {@code policies} against the emulated API server: the training pod ({@code app=llm}) is evicted only once
 * it carries its checkpoint annotation, or at its deadline, while the inference pod on the same node is evicted at
 * once; a PodDisruptionBudget still holds the checkpointed pod until it allows the eviction.
 */
class DrainPolicyMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String CHECKPOINT = "example.com/checkpointed";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-xid", """
            - drain:
                mode: evict
                timeout: 2h
                grace_period: 1m
                policies:
                  - select: {labels: "app=llm"}
                    mode: wait_for_checkpoint
                    checkpoint: {annotation: example.com/checkpointed}
                    deadline: 30m
                  - select: {namespace: inference}
                    mode: evict
                  - select: {namespace: batch}
                    mode: wait_for_completion
      """);
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  private void start() {
    h = new ClosedLoopHarness(dir, PLAYBOOKS, OutboundPorts.NONE);
    h.pod("ml", "trainer-0", NODE, Map.of("app", "llm"));
    h.pod("inference", "server-0", NODE, Map.of("app", "vllm"));
    h.fire(Alerts.xid(NODE, "79"));
  }

  private void checkpointed() {
    h.client.pods().inNamespace("ml").withName("trainer-0").edit(p -> {
      p.getMetadata().setAnnotations(Map.of(CHECKPOINT, "step-12000"));
      return p;
    });
  }

  @Test
  void theTrainingPodLeavesOnlyOnceCheckpointedAndItsBudgetStillHolds() {
    start();
    h.server.budget("ml", "llm-pdb", "app", "llm", 0);
    Episode draining = h.lookUntil(NODE, Stage.DRAINING, 2);
    assertThat(h.server.evictionsGranted("inference", "server-0")).as("inference: evicted at once").isEqualTo(1);
    assertThat(h.server.evictionsGranted("ml", "trainer-0")).isZero();
    assertThat(draining.progress().note()).contains("held by a drain policy: ml/trainer-0 waits for its checkpoint"
        + " (annotation example.com/checkpointed) until");
    int asked = h.server.evictionRequests();
    h.look(NODE);
    assertThat(h.server.evictionRequests()).as("nothing asked for the training pod before its checkpoint").isEqualTo(asked);

    checkpointed();
    h.clock.advance(Duration.ofMinutes(1));
    Episode blocked = h.lookUntil(NODE, Stage.DRAINING, 1);
    assertThat(blocked.progress().note()).as("checkpointed: asked, and the budget refuses").contains("waiting on PDB ml/llm-pdb");
    assertThat(h.server.evictionsGranted("ml", "trainer-0")).isZero();

    h.server.allow("ml", "llm-pdb", 1);
    h.clock.advance(Duration.ofMinutes(1));
    h.lookUntil(NODE, Stage.DRAINED, 3);
    assertThat(h.server.evictionsGranted("ml", "trainer-0")).isEqualTo(1);
    assertThat(h.decisions(Reason.DRAINED)).hasSize(1);
  }

  @Test
  void aBatchPodRunsToCompletionAndTheDrainEndsWhenItFinishes() {
    h = new ClosedLoopHarness(dir, PLAYBOOKS, OutboundPorts.NONE);
    h.pod("batch", "etl-0", NODE, Map.of("app", "etl"));
    h.fire(Alerts.xid(NODE, "79"));
    h.clock.advance(Duration.ofMinutes(90));
    Episode draining = h.lookUntil(NODE, Stage.DRAINING, 2);
    assertThat(draining.progress().note()).contains("batch/etl-0 runs to completion (no deadline: the drain's timeout)");
    assertThat(h.server.evictionRequests()).isZero();
    h.client.pods().inNamespace("batch").withName("etl-0").editStatus(p -> {
      p.getStatus().setPhase("Succeeded");
      return p;
    });
    h.lookUntil(NODE, Stage.DRAINED, 2);
    assertThat(h.server.evictionRequests()).as("it finished: nothing evicted").isZero();
  }

  @Test
  void aTrainingPodThatNeverCheckpointsIsEvictedAtItsDeadline() {
    start();
    h.lookUntil(NODE, Stage.DRAINING, 2);
    h.clock.advance(Duration.ofMinutes(29));
    h.look(NODE);
    assertThat(h.server.evictionsGranted("ml", "trainer-0")).as("inside its deadline").isZero();
    h.clock.advance(Duration.ofMinutes(2));
    h.look(NODE);
    assertThat(h.server.evictionsGranted("ml", "trainer-0")).as("at its deadline").isEqualTo(1);
  }
}
