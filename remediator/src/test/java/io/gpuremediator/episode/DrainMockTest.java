package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every drain outcome, against the emulated API server over HTTP. */
class DrainMockTest {
  private static final String NODE = "gpu-node-0";
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  private ClosedLoopHarness harness(String mode) {
    h = new ClosedLoopHarness(dir, mode, 1);
    return h;
  }

  /** A training pod held by a budget, a web pod, and what a drain leaves alone. */
  private void workload() {
    h.pod("ml-training", "trainer-0", NODE, Map.of("app", "llm"));
    h.pod("default", "web-1", NODE, Map.of("app", "web"));
    h.pod("kube-system", "kube-proxy-x", NODE, Map.of());
    h.pod("default", "elsewhere", "gpu-node-1", Map.of("app", "web"));
    h.client.pods().inNamespace("monitoring").resource(new PodBuilder().withNewMetadata().withName("dcgm-exporter-x")
        .withNamespace("monitoring").withOwnerReferences(new OwnerReferenceBuilder().withKind("DaemonSet").withName("dcgm")
            .withApiVersion("apps/v1").withUid("u1").withController(true).build()).endMetadata()
        .withNewSpec().withNodeName(NODE).endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
    h.client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("done-job")
        .withNamespace("default").endMetadata().withNewSpec().withNodeName(NODE).endSpec()
        .withNewStatus().withPhase("Succeeded").endStatus().build()).create();
  }

  /** The XID fires on a node whose training pod a budget holds: the drain starts and waits. */
  private void drainHeldByBudget() {
    Nodes.trainerHeldByBudget(h.client, h.server, NODE);
    h.fire(xid());
    h.lookUntil(NODE, Stage.DRAINING, 1);
  }

  private Alert xid() {
    return Alerts.xid(NODE, "79");
  }

  @Test
  void aBudgetBlocksTheDrainUntilItLetsGoAndThenTheReleaseWaitsForDiagnostics() {
    harness("evict");
    workload();
    h.server.budget("ml-training", "llm-pdb", "app", "llm", 0);

    Decision fired = h.fire(xid());
    assertThat(fired.reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(fired.actions()).extracting(ActionRecord::type, a -> a.outcome().code()).containsExactly(
        Tuple.tuple("taint", "applied"), Tuple.tuple("cordon", "applied"),
        Tuple.tuple("drain", "pending"), Tuple.tuple("event", "pending"));
    assertThat(h.episode(NODE).progress().stage()).isEqualTo(Stage.QUARANTINED);

    Episode draining = h.lookUntil(NODE, Stage.DRAINING, 1);
    assertThat(draining.progress().note()).contains("waiting on PDB ml-training/llm-pdb");
    assertThat(h.server.evictionsGranted("default", "web-1")).isEqualTo(1);
    assertThat(h.server.evictionsGranted("ml-training", "trainer-0")).isZero();
    assertThat(h.client.pods().inNamespace("kube-system").withName("kube-proxy-x").get()).isNotNull();
    assertThat(h.client.pods().inNamespace("monitoring").withName("dcgm-exporter-x").get()).isNotNull();
    assertThat(events("DrainBlockedByPDB")).singleElement().satisfies(e ->
        assertThat(e.getMessage()).contains("llm-pdb").contains("ml-training/trainer-0"));

    int asked = h.server.evictionRequests();
    h.look(NODE);
    assertThat(h.server.evictionRequests()).as("no eviction asked again before the retry delay").isEqualTo(asked);

    // The alert resolves mid-drain: the release waits for the drain.
    Decision early = h.fire(Alerts.resolved(xid()));
    assertThat(early.reason()).isEqualTo(Reason.RELEASE_PENDING);
    assertThat(early.detail()).contains("step 3 of 4 (drain) has not finished");

    h.clock.advance(Duration.ofSeconds(6));
    h.look(NODE);
    assertThat(h.episode(NODE).progress().stage()).isEqualTo(Stage.DRAINING);
    assertThat(events("DrainBlockedByPDB")).as("one Event per budget and step, not per look").hasSize(1);

    h.server.allow("ml-training", "llm-pdb", 1);
    h.clock.advance(Duration.ofSeconds(6));
    Episode diagnosing = h.lookUntil(NODE, Stage.DIAGNOSING, 3);
    assertThat(h.server.evictionsGranted("ml-training", "trainer-0")).isEqualTo(1);
    assertThat(h.podNotices("ml-training")).as("the workload is told, once, though the budget refused it first")
        .singleElement().satisfies(e -> {
          assertThat(e.getInvolvedObject().getName()).isEqualTo("trainer-0");
          assertThat(e.getType()).isEqualTo("Warning");
          assertThat(e.getMessage()).contains("ml-training/trainer-0 was evicted by a drain on node " + NODE)
              .contains("every GPU of the node").contains("alert GpuXidHardwareError (fingerprint " + xid().fingerprint())
              .contains("episode " + EpisodeNames.episodeHash(NODE, xid().fingerprint(), xid().startsAt()));
        });
    assertThat(h.podNotices("default")).extracting(e -> e.getInvolvedObject().getName()).containsExactly("web-1");
    assertThat(h.podNotices("kube-system")).as("a DaemonSet's pod, not evicted, is not told").isEmpty();
    assertThat(h.decisions(Reason.DRAINED)).hasSize(1);
    assertThat(h.decisions(Reason.STEPS_APPLIED)).anySatisfy(d -> assertThat(d.actions())
        .extracting(ActionRecord::type).containsExactly("event"));
    assertThat(diagnosing.progress().task()).isPresent();
    assertThat(h.node(NODE).unschedulable()).as("diagnostics run on a node still out of service").isTrue();

    h.finishJob("Complete", "");
    h.look(NODE);
    assertThat(h.episode(NODE)).as("released: the episode is over").isNull();
    assertThat(h.node(NODE).unschedulable()).isFalse();
    assertThat(h.node(NODE).taints()).isEmpty();
    assertThat(h.decisions(Reason.RELEASED)).hasSize(1);
    assertThat(h.server.evictionsGranted("default", "web-1")).isEqualTo(1);
  }

  @Test
  void throttlingIsRetriedAfterItsRetryAfterAndIsNotABudgetBlock() {
    harness("evict");
    h.pod("default", "web-1", NODE, Map.of("app", "web"));
    h.fire(xid());
    h.server.throttleEvictions(1);
    Episode e = h.lookUntil(NODE, Stage.DRAINING, 1);
    assertThat(e.progress().note()).contains("throttling").doesNotContain("PDB");
    assertThat(e.progress().task().orElseThrow().retryAt()).contains(h.clock.instant().plusSeconds(1));
    assertThat(events("DrainBlockedByPDB")).isEmpty();
    h.clock.advance(Duration.ofSeconds(2));
    h.lookUntil(NODE, Stage.DRAINED, 2);
    assertThat(h.server.evictionsGranted("default", "web-1")).isEqualTo(1);
  }

  @Test
  void aPodUnderSeveralBudgetsFailsTheDrainWithoutRetrying() {
    harness("evict");
    h.pod("ml-training", "trainer-0", NODE, Map.of("app", "llm"));
    h.server.budget("ml-training", "a", "app", "llm", 5);
    h.server.budget("ml-training", "b", "app", "llm", 5);
    h.fire(xid());
    Episode failed = h.lookUntil(NODE, Stage.DRAIN_FAILED, 2);
    assertThat(failed.progress().note()).contains("more than one PodDisruptionBudget").contains("not retried");
    int asked = h.server.evictionRequests();
    h.clock.advance(Duration.ofMinutes(5));
    h.look(NODE);
    assertThat(h.server.evictionRequests()).isEqualTo(asked);
    assertThat(h.decisions(Reason.DRAIN_FAILED)).hasSize(1);
    assertThat(h.node(NODE).unschedulable()).as("a failed drain leaves the node out of service").isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"evict", "wait"})
  void atTheTimeoutTheDrainFailsInEvictAndWaitModes(String mode) {
    harness(mode);
    drainHeldByBudget();
    h.clock.advance(Duration.ofMinutes(31));
    Episode failed = h.lookUntil(NODE, Stage.DRAIN_FAILED, 1);
    assertThat(failed.progress().note()).contains("drain timed out after 30m (" + mode + ")").contains("ml-training/trainer-0");
    assertThat(h.client.pods().inNamespace("ml-training").withName("trainer-0").get()).isNotNull();
  }

  @Test
  void waitModeEvictsNothingAndFinishesWhenThePodsDo() {
    harness("wait");
    h.pod("ml-training", "trainer-0", NODE, Map.of("app", "llm"));
    h.fire(xid());
    Episode e = h.lookUntil(NODE, Stage.DRAINING, 1);
    assertThat(e.progress().note()).contains("waiting for 1 pods to finish");
    assertThat(h.server.evictionRequests()).isZero();
    h.client.pods().inNamespace("ml-training").withName("trainer-0").delete();
    h.lookUntil(NODE, Stage.DRAINED, 2);
  }

  @Test
  void evictThenDeleteDeletesWhatIsLeftAtTheTimeout() {
    harness("evict_then_delete");
    drainHeldByBudget();
    h.clock.advance(Duration.ofMinutes(31));
    h.lookUntil(NODE, Stage.DRAINED, 3);
    assertThat(h.client.pods().inNamespace("ml-training").withName("trainer-0").get()).isNull();
    assertThat(h.server.evictionsGranted("ml-training", "trainer-0")).as("deleted at the timeout, never evicted").isZero();
  }

  @Test
  void aPodThatGoesAwayByItselfCountsAsMoved() {
    harness("evict");
    drainHeldByBudget();
    h.client.pods().inNamespace("ml-training").withName("trainer-0").delete();
    h.clock.advance(Duration.ofSeconds(6));
    h.lookUntil(NODE, Stage.DRAINED, 2);
    assertThat(h.server.evictionsGranted("ml-training", "trainer-0")).isZero();
  }

  @Test
  void aNodeThatIsGoneEndsNothingBadly() {
    harness("evict");
    drainHeldByBudget();
    h.client.nodes().withName(NODE).delete();
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> h.cluster.node(NODE).isEmpty());
    int asked = h.server.evictionRequests();
    h.clock.advance(Duration.ofMinutes(1));
    h.loop.advance(NODE);
    assertThat(h.server.evictionRequests()).as("no eviction for a node that is gone").isEqualTo(asked);
  }

  @Test
  void maxDrainingKeepsTheNextNodeQuarantinedUntilASlotFrees() {
    harness("evict");
    h.pod("ml-training", "trainer-0", NODE, Map.of("app", "llm"));
    h.server.budget("ml-training", "llm-pdb", "app", "llm", 0);
    h.pod("default", "web-2", "gpu-node-1", Map.of("app", "web"));
    h.fire(xid());
    h.fire(Alerts.xid("gpu-node-1", "48"));
    h.lookUntil(NODE, Stage.DRAINING, 1);
    h.look("gpu-node-1");
    Episode waiting = h.episode("gpu-node-1");
    assertThat(waiting.progress().stage()).isEqualTo(Stage.QUARANTINED);
    assertThat(waiting.progress().note()).contains("waiting for a drain slot").contains("max_draining");
    assertThat(h.decisions(Reason.MAX_DRAINING)).hasSize(1);
    assertThat(h.server.evictionsGranted("default", "web-2")).isZero();
    h.server.allow("ml-training", "llm-pdb", 1);
    h.clock.advance(Duration.ofSeconds(6));
    h.lookUntil(NODE, Stage.DRAINED, 3);
    h.lookUntil("gpu-node-1", Stage.DRAINED, 3);
    assertThat(h.server.evictionsGranted("default", "web-2")).isEqualTo(1);
  }

  private List<Event> events(String reason) {
    return h.events(reason);
  }
}
