package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.Notifier.Notification;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Evidence before destruction ({@code collect}), through the closed loop against the emulated API server over HTTP;
 * the test plays the Job controller and the disruption controller. The loop's clock starts at the wall clock's now, by
 * which the API server stamps a Job's creationTimestamp. The evidence Job starts before the drain and runs beside it; the reboot waits for it to finish, and for no
 * longer than its timeout.
 */
class CollectMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-reboot", """
            - collect:
                image: nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04
                command: [nvidia-bug-report.sh, --safe-mode, --output-file, /dev/stdout]
                timeout: 10m
                keep: 7d%s
            - drain: {mode: evict, timeout: 30m, grace_period: 1m}
            - reboot: {method: job, timeout: 30m}
            - diagnose: {image: "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", command: [dcgmi, diag, -r, "2"]}
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
      """);
  @TempDir Path dir;
  /** Closes the instances restarted over it ({@link #second}) first. */
  @AutoClose private ClosedLoopHarness h;
  private ClosedLoopHarness second;

  private ClosedLoopHarness harness(String collectExtra) {
    return new ClosedLoopHarness(dir, String.format(PLAYBOOKS, collectExtra), OutboundPorts.NONE,
        new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
  }

  /** The XID fires on a node whose trainer a budget holds: the evidence Job is created and the drain starts beside it. */
  private Job collectingBesideTheDrain(String collectExtra) {
    h = harness(collectExtra);
    Nodes.trainerHeldByBudget(h.client, h.server, NODE);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINING, 2);
    return h.job("collect");
  }

  /** The trainer checkpointed: its budget lets it go, and the drain ends. */
  private Episode drained() {
    h.server.allow("ml-training", "llm-pdb", 1);
    h.clock.advance(Duration.ofSeconds(6)); // the drain's next try after the budget refused
    return h.lookUntil(NODE, Stage.DRAINED, 3);
  }

  @Test
  void aNotificationAfterTheCollectStepNamesTheEvidenceJob() {
    List<Notification> sent = new CopyOnWriteArrayList<>();
    Notifier notifier = n -> {
      sent.add(n);
      return Notifier.Queued.QUEUED;
    };
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, "").replace("- drain:",
        "- notify: {receiver: oncall, message: \"{{ node }} quarantined\"}\n      - drain:"),
        new OutboundPorts(Silences.NOT_CONFIGURED, notifier, InstanceHealth.NOT_CONFIGURED),
        new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    Nodes.trainerHeldByBudget(h.client, h.server, NODE);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINING, 2);
    String job = "gpu-remediator/" + h.job("collect").getMetadata().getName();
    assertThat(sent).as("episode %s", h.episode(NODE)).singleElement().satisfies(n -> assertThat(n.text())
        .isEqualTo(NODE + " quarantined (evidence: job " + job + ")"));
  }

  @Test
  void theEvidenceJobRunsBesideTheDrainAndTheRebootWaitsUntilItFinished() {
    Job collect = collectingBesideTheDrain("");
    String job = "gpu-remediator/" + collect.getMetadata().getName();
    PodSpec pod = collect.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeName()).isEqualTo(NODE);
    assertThat(pod.getHostPID()).isTrue();
    assertThat(pod.getContainers().get(0).getSecurityContext().getPrivileged()).isTrue();
    assertThat(pod.getContainers().get(0).getCommand())
        .containsExactly("nvidia-bug-report.sh", "--safe-mode", "--output-file", "/dev/stdout");
    assertThat(collect.getSpec().getActiveDeadlineSeconds()).isEqualTo(600);
    assertThat(collect.getSpec().getTtlSecondsAfterFinished()).as("kept 7 days").isEqualTo(7 * 86_400);
    assertThat(h.decisions(Reason.COLLECT_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("evidence job " + job + " created on " + NODE));
    assertThat(h.events("CollectStarted")).singleElement().satisfies(ev -> assertThat(ev.getMessage()).contains(job));
    assertThat(h.episode(NODE).progress().stage()).as("the drain is under way while the evidence Job runs")
        .isEqualTo(Stage.DRAINING);

    drained();
    for (int i = 0; i < 3; i++) {
      h.look(NODE);
    }
    Episode waiting = h.episode(NODE);
    assertThat(waiting.progress().stage()).isEqualTo(Stage.DRAINED);
    assertThat(waiting.progress().note()).contains("the reboot of " + NODE + " waits for evidence job " + job);
    assertThat(h.jobs("reboot")).as("no reboot while the evidence Job runs").isEmpty();
    assertThat(h.decisions(Reason.COLLECT_WAITING)).singleElement().satisfies(d -> assertThat(d.detail()).contains(job));
    assertThat(waiting.evidence()).containsExactly(job);

    h.finishJob("collect", "Complete", "");
    Episode rebooting = h.lookUntil(NODE, Stage.REPAIRING, 2);
    assertThat(h.jobs("reboot")).hasSize(1);
    assertThat(h.decisions(Reason.REPAIR_STARTED)).hasSize(1);
    assertThat(rebooting.evidence()).containsExactly(job);
    assertThat(h.jobs("collect")).as("one evidence Job, however many looks").hasSize(1);
  }

  @Test
  void anEvidenceJobThatNeverFinishesHoldsTheRebootOnlyUntilItsTimeout() {
    String job = "gpu-remediator/" + collectingBesideTheDrain("").getMetadata().getName();
    drained();
    h.clock.advance(Duration.ofMinutes(5));
    h.look(NODE);
    assertThat(h.episode(NODE).progress().stage()).isEqualTo(Stage.DRAINED);
    assertThat(h.jobs("reboot")).isEmpty();

    h.clock.advance(Duration.ofMinutes(6)); // past its 10m and the Job controller's slack: no Job controller marked it
    Episode rebooting = h.lookUntil(NODE, Stage.REPAIRING, 2);
    assertThat(h.jobs("reboot")).hasSize(1);
    assertThat(rebooting.progress().note() + h.decisions(Reason.REPAIR_STARTED))
        .doesNotContain("waits for");
    assertThat(h.decisions(Reason.COLLECT_WAITING)).singleElement().satisfies(d -> assertThat(d.detail()).contains(job));
  }

  @Test
  void aTimedOutEvidenceJobIsNamedAndTheRebootGoesOn() {
    Job collect = collectingBesideTheDrain("");
    h.finish(collect, "Failed", "DeadlineExceeded");
    h.server.allow("ml-training", "llm-pdb", 1);
    h.clock.advance(Duration.ofSeconds(6));
    Episode e = h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(h.jobs("reboot")).hasSize(1);
    assertThat(h.decisions(Reason.COLLECT_WAITING)).isEmpty();
    assertThat(e.evidence()).containsExactly("gpu-remediator/" + collect.getMetadata().getName());
  }

  @Test
  void aRestartWhileTheRebootWaitsFindsTheSameEvidenceJob() {
    collectingBesideTheDrain("");
    drained();
    h.look(NODE);
    h.stop();
    second = h.restarted(dir, String.format(PLAYBOOKS, ""), OutboundPorts.NONE);
    second.look(NODE);
    assertThat(second.episode(NODE).progress().stage()).isEqualTo(Stage.DRAINED);
    assertThat(second.jobs("collect")).hasSize(1);
    second.finishJob("collect", "Complete", "");
    second.lookUntil(NODE, Stage.REPAIRING, 2);
    assertThat(second.jobs("reboot")).hasSize(1);
  }

  @Test
  void aDryRunCollectCreatesNoJobAndHoldsNothing() {
    h = harness("\n          dry_run: true");
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 4);
    assertThat(h.jobs("collect")).isEmpty();
    assertThat(h.jobs("reboot")).hasSize(1);
  }
}
