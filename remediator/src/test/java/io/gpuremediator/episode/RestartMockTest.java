package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service stopped mid-drain and mid-diagnose: a new instance (a restart, or a new leader) resumes
 * each episode from the ledger and finishes it once: no eviction repeated past a budget, one Job per step.
 */
class RestartMockTest {
  private static final String NODE = "gpu-node-0";
  @TempDir Path dir;
  private ClosedLoopHarness first;
  private ClosedLoopHarness second;

  @AfterEach
  void close() {
    if (second != null) {
      second.stop();
    }
    if (first != null) {
      first.close();
    }
  }

  @Test
  void aNewInstanceResumesADrainWithoutEvictingAgain() {
    first = new ClosedLoopHarness(dir, "evict", 1);
    first.pod("ml-training", "trainer-0", NODE, Map.of("app", "llm"));
    first.pod("default", "web-1", NODE, Map.of("app", "web"));
    first.server.budget("ml-training", "llm-pdb", "app", "llm", 0);
    first.fire(Alerts.xid(NODE, "79"));
    first.lookUntil(NODE, Stage.DRAINING, 1);
    first.stop();

    second = first.restarted(dir, "evict");
    second.clock.advance(Duration.ofSeconds(6));
    second.look(NODE);
    assertThat(second.episode(NODE).progress().stage()).isEqualTo(Stage.DRAINING);
    assertThat(second.decisions(Reason.DRAIN_STARTED)).as("the drain resumed, not started again").isEmpty();
    second.server.allow("ml-training", "llm-pdb", 1);
    second.clock.advance(Duration.ofSeconds(6));
    second.lookUntil(NODE, Stage.DRAINED, 3);
    assertThat(second.server.evictionsGranted("default", "web-1")).isEqualTo(1);
    assertThat(second.server.evictionsGranted("ml-training", "trainer-0")).isEqualTo(1);
    assertThat(second.decisions(Reason.DRAINED)).hasSize(1);
  }

  @Test
  void aNewInstanceResumesDiagnosticsOnTheSameJob() {
    first = new ClosedLoopHarness(dir, "evict", 1);
    first.fire(Alerts.xid(NODE, "79"));
    first.lookUntil(NODE, Stage.DRAINED, 2);
    first.fire(Alerts.resolved(Alerts.xid(NODE, "79")));
    first.lookUntil(NODE, Stage.DIAGNOSING, 2);
    String job = first.job().getMetadata().getName();
    first.stop();

    second = first.restarted(dir, "evict");
    second.look(NODE);
    second.look(NODE);
    assertThat(second.job().getMetadata().getName()).isEqualTo(job);
    second.finishJob("Complete", "");
    second.look(NODE);
    assertThat(second.episode(NODE)).isNull();
    assertThat(second.node(NODE).unschedulable()).isFalse();
    assertThat(second.decisions(Reason.DIAGNOSE_STARTED)).isEmpty();
    assertThat(second.decisions(Reason.RELEASED)).hasSize(1);
  }

  @Test
  void twoInstancesLookingAtOnceStartEachStepOnce() {
    first = new ClosedLoopHarness(dir, "evict", 1);
    second = first.restarted(dir, "evict");
    first.fire(Alerts.xid(NODE, "79"));
    first.episode(NODE);
    second.episode(NODE);
    CompletableFuture<Void> a = CompletableFuture.runAsync(() -> first.loop.advance(NODE));
    CompletableFuture<Void> b = CompletableFuture.runAsync(() -> second.loop.advance(NODE));
    a.join();
    b.join();
    first.lookUntil(NODE, Stage.DRAINED, 3);
    first.fire(Alerts.resolved(Alerts.xid(NODE, "79")));
    first.episode(NODE);
    second.episode(NODE);
    a = CompletableFuture.runAsync(() -> first.loop.advance(NODE));
    b = CompletableFuture.runAsync(() -> second.loop.advance(NODE));
    a.join();
    b.join();
    first.lookUntil(NODE, Stage.DIAGNOSING, 3);
    second.look(NODE);
    first.look(NODE);
    assertThat(first.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).hasSize(1);
    assertThat(first.decisions(Reason.DRAIN_STARTED).size() + second.decisions(Reason.DRAIN_STARTED).size()).isEqualTo(1);
    assertThat(first.decisions(Reason.DIAGNOSE_STARTED).size() + second.decisions(Reason.DIAGNOSE_STARTED).size())
        .isEqualTo(1);
  }
}
