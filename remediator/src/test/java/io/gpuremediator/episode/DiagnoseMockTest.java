package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every diagnose outcome, against the emulated API server over HTTP; the test plays the Job controller. */
class DiagnoseMockTest {
  private static final String NODE = "gpu-node-0";
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  /** Quarantined, drained (nothing to move), resolved: the diagnostic Job is created. */
  private Job diagnosing(boolean escalate) {
    h = new ClosedLoopHarness(dir, "evict", 1, escalate);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINED, 2);
    assertThat(h.fire(Alerts.resolved(Alerts.xid(NODE, "79"))).reason()).isEqualTo(Reason.RESOLVED_ACTIONS_APPLIED);
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    return h.job();
  }

  @Test
  void theJobIsPinnedToTheNodeToleratesTheQuarantineAndRunsOnce() {
    Job job = diagnosing(true);
    assertThat(job.getSpec().getTemplate().getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(job.getSpec().getBackoffLimit()).isZero();
    assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(1800L);
    assertThat(job.getSpec().getTemplate().getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(job.getSpec().getTemplate().getSpec().getTolerations()).extracting(Toleration::getKey)
        .contains("gpu-remediator.io/unhealthy", "node.kubernetes.io/unschedulable");
    assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand())
        .containsExactly("dcgmi", "diag", "-r", "2", "-j");
    assertThat(job.getMetadata().getLabels()).containsKey(EpisodeNames.JOB_EPISODE_LABEL);
    h.look(NODE);
    h.look(NODE);
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).hasSize(1);
    assertThat(h.decisions(Reason.DIAGNOSE_STARTED)).hasSize(1);
  }

  @Test
  void aFailedJobEscalatesWithItsLogTail() {
    Job job = diagnosing(true);
    h.client.pods().inNamespace("gpu-remediator").resource(new PodBuilder().withNewMetadata().withName("diag-pod")
        .withNamespace("gpu-remediator").withLabels(Map.of("job-name", job.getMetadata().getName())).endMetadata()
        .withNewSpec().withNodeName(NODE).endSpec().build()).create();
    h.server.log("gpu-remediator", "diag-pod", "Memory bandwidth ... Fail\nGPU 3: row remap pending\n");
    h.finishJob("Failed", "BackoffLimitExceeded");
    Episode escalated = h.lookUntil(NODE, Stage.ESCALATED, 1);
    assertThat(escalated.playbook()).isEqualTo("gpu-needs-human");
    assertThat(h.decisions(Reason.ESCALATED)).singleElement().satisfies(d ->
        assertThat(d.detail()).contains("failed").contains("GPU 3: row remap pending").contains("escalated to gpu-needs-human"));
    assertThat(h.node(NODE).labels()).containsEntry("gpu-remediator.io/needs-human", "true");
    assertThat(h.node(NODE).unschedulable()).as("never released after failed diagnostics").isTrue();

    // The escalation playbook has no on_resolved: a human's release still undoes everything the episode holds.
    HumanControls.Result released = h.controls.release(NODE, "GPU replaced", "test");
    assertThat(released.decisions()).singleElement().satisfies(d -> assertThat(d.actions())
        .extracting(a -> a.type() + ":" + a.outcome())
        .containsExactlyInAnyOrder("uncordon:applied", "untaint:applied", "unlabel:applied"));
    assertThat(h.node(NODE).unschedulable()).isFalse();
    assertThat(h.node(NODE).taints()).isEmpty();
    assertThat(h.node(NODE).labels()).doesNotContainKey("gpu-remediator.io/needs-human");
    assertThat(h.node(NODE).ledger().claims()).as("only the condition stays, as a record").allSatisfy((k, c) ->
        assertThat(k).startsWith("condition/"));
  }

  @Test
  void aTimedOutJobFailsTheStep() {
    diagnosing(false);
    h.finishJob("Failed", "DeadlineExceeded");
    Episode failed = h.lookUntil(NODE, Stage.DIAGNOSTICS_FAILED, 1);
    assertThat(failed.progress().note()).contains("timed out after 30m");
    assertThat(h.decisions(Reason.DIAGNOSTICS_FAILED)).hasSize(1);
    assertThat(h.node(NODE).unschedulable()).isTrue();
  }

  @Test
  void aJobThatNeverEndsFailsAfterItsTimeout() {
    diagnosing(false);
    h.clock.advance(Duration.ofMinutes(33));
    assertThat(h.lookUntil(NODE, Stage.DIAGNOSTICS_FAILED, 1).progress().note()).contains("did not finish within 30m");
  }

  @Test
  void aDeletedJobFailsTheStepAndNeverPassesIt() {
    Job job = diagnosing(false);
    h.client.batch().v1().jobs().inNamespace("gpu-remediator").withName(job.getMetadata().getName()).delete();
    Episode failed = h.lookUntil(NODE, Stage.DIAGNOSTICS_FAILED, 2);
    assertThat(failed.progress().note()).contains("is gone");
    assertThat(h.node(NODE).unschedulable()).isTrue();
  }

  @Test
  void aHumansRetryRunsANewJobAndAPassReleasesTheNode() {
    diagnosing(false);
    h.finishJob("Failed", "BackoffLimitExceeded");
    h.lookUntil(NODE, Stage.DIAGNOSTICS_FAILED, 1);
    HumanControls.Result retry = h.controls.retry(NODE, "replaced the riser card", "test");
    assertThat(retry.status()).isEqualTo(HumanControls.Status.DONE);
    assertThat(retry.decisions()).singleElement().satisfies(d -> assertThat(d.reason()).isEqualTo(Reason.STEP_RETRIED));
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    Job second = h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems().stream()
        .filter(j -> j.getStatus() == null || j.getStatus().getConditions() == null || j.getStatus().getConditions().isEmpty())
        .findFirst().orElseThrow();
    assertThat(h.client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).hasSize(2);
    second.setStatus(new JobStatusBuilder().addNewCondition().withType("Complete")
        .withStatus("True").endCondition().build());
    h.client.batch().v1().jobs().inNamespace("gpu-remediator").resource(second).updateStatus();
    h.look(NODE);
    assertThat(h.episode(NODE)).isNull();
    assertThat(h.node(NODE).unschedulable()).isFalse();
  }

  @Test
  void aHumanReleasesANodeWhoseDiagnosticsFailed() {
    diagnosing(false);
    h.finishJob("Failed", "BackoffLimitExceeded");
    h.lookUntil(NODE, Stage.DIAGNOSTICS_FAILED, 1);
    HumanControls.Result released = h.controls.release(NODE, "vendor swapped the GPU", "test");
    assertThat(released.status()).isEqualTo(HumanControls.Status.DONE);
    assertThat(released.decisions()).singleElement().satisfies(d -> {
      assertThat(d.reason()).isEqualTo(Reason.RELEASED_BY_HUMAN);
      assertThat(d.detail()).contains("vendor swapped the GPU");
      assertThat(d.actions()).extracting(a -> a.type() + ":" + a.outcome())
          .containsExactly("diagnose:not_run", "untaint:applied", "uncordon:applied");
    });
    assertThat(h.episode(NODE)).isNull();
    assertThat(h.node(NODE).unschedulable()).isFalse();
    assertThat(h.ended).as("remediator_episode_duration_seconds: stopped for a human, then closed by one, not by a repair")
        .containsExactly("gpu-xid needs_human automatic", "gpu-xid released human");
    assertThat(h.controls.release(NODE, "again", "test").status()).isEqualTo(HumanControls.Status.NOTHING_TO_DO);
    assertThat(h.controls.release("no-such-node", "x", "test").status()).isEqualTo(HumanControls.Status.UNKNOWN_NODE);
  }
}
