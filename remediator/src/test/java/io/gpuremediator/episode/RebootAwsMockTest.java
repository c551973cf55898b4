package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.InstanceReboots;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.outbound.aws.Ec2InstanceReboots;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.AwsQueryStub.Answer;
import io.gpuremediator.testing.Ec2Stub;
import io.gpuremediator.testing.Nodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The reboot step by EC2 RebootInstances, against the emulated API server and a local EC2 endpoint speaking the query
 * protocol: an instance is rebooted once per attempt whatever the throttling, lost answers and restarts.
 */
class RebootAwsMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String INSTANCE = "i-0123456789abcdef0";
  private static final String PLAYBOOKS = String.format(RebootJobMockTest.PLAYBOOKS, "aws", "");

  @TempDir Path dir;
  private Ec2Stub ec2;
  private final List<Ec2InstanceReboots> clients = new ArrayList<>();
  private final List<ClosedLoopHarness> harnesses = new ArrayList<>();

  @BeforeEach
  void stub() throws Exception {
    ec2 = new Ec2Stub();
    ec2.instance(INSTANCE);
  }

  @AfterEach
  void close() throws Exception {
    ClosedLoopHarness.closeAll(harnesses);
    clients.forEach(Ec2InstanceReboots::close);
    ec2.close();
  }

  private static OutboundPorts ports(InstanceReboots reboots) {
    return new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE, InstanceHealth.NOT_CONFIGURED,
        reboots, BmcResets.NOT_CONFIGURED);
  }

  /** A new instance of the service (the first starts the API server and names the node's instance). */
  private ClosedLoopHarness start(InstanceReboots reboots) {
    ClosedLoopHarness h = harnesses.isEmpty() ? new ClosedLoopHarness(dir, PLAYBOOKS, ports(reboots))
        : harnesses.get(0).restarted(dir, PLAYBOOKS, ports(reboots));
    if (harnesses.isEmpty()) {
      h.providerId(NODE, "aws:///us-west-2a/" + INSTANCE);
    }
    harnesses.add(h);
    return h;
  }

  private InstanceReboots ec2() {
    Ec2InstanceReboots client = Ec2InstanceReboots.create("us-west-2", Optional.of(ec2.endpoint()),
        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "secret")), OutboundListener.NONE);
    clients.add(client);
    return client;
  }

  @Test
  void throttledForEverFailsTheStepAtItsTimeout() {
    ClosedLoopHarness h = start(ec2());
    Answer[] throttled = new Answer[20];
    Arrays.fill(throttled, Answer.THROTTLED);
    ec2.next(throttled);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    for (int i = 0; i < 3; i++) {
      h.clock.advance(Duration.ofMinutes(10));
      h.look(NODE);
    }
    h.clock.advance(Duration.ofMinutes(1));
    h.lookUntil(NODE, Stage.REPAIR_FAILED, 1);
    assertThat(ec2.requests("RebootInstances")).isEqualTo(4);
    assertThat(ec2.rebooted()).isEmpty();
    assertThat(h.decisions(Reason.REBOOT_TIMEOUT)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("no reboot of " + NODE + " by aws was applied within 30m"));
  }

  @Test
  void throttledThenAppliedWithTheAnswerLostThenARestartRebootsOnce() {
    ClosedLoopHarness h = start(ec2());
    ec2.next(Answer.THROTTLED, Answer.APPLIED_ANSWER_LOST);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 3); // started, asked: throttled
    assertThat(h.episode(NODE).progress().note()).contains("RequestLimitExceeded").contains("asked again at");
    assertThat(h.episode(NODE).progress().task().orElseThrow().handle()).as("the intent cleared").doesNotContain("asked");
    h.look(NODE); // not before its retry time: nothing sent
    assertThat(ec2.requests("RebootInstances")).isEqualTo(1);

    h.clock.advance(Duration.ofSeconds(6));
    h.look(NODE); // asked again: applied, the answer lost
    assertThat(ec2.rebooted()).containsExactly(INSTANCE);
    assertThat(h.episode(NODE).progress().task().orElseThrow().handle()).endsWith(" sent");
    assertThat(h.decisions(Reason.REPAIR_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("its answer lost"));

    h.stop();
    ClosedLoopHarness after = start(ec2());
    after.look(NODE);
    after.clock.advance(Duration.ofMinutes(5));
    after.look(NODE);
    assertThat(ec2.requests("RebootInstances")).as("a restart asks nothing again").isEqualTo(2);
    Nodes.booted(after.client, NODE, NODE + "-boot-2", true);
    after.lookUntil(NODE, Stage.DIAGNOSING, 2);
    assertThat(ec2.rebooted()).containsExactly(INSTANCE);
    assertThat(after.decisions(Reason.REPAIRED)).hasSize(1);
  }

  @Test
  void anIntentRecordedByAServiceThatDiedBeforeAnAnswerIsNeverAskedAgain() {
    ClosedLoopHarness h = start(instance -> {
      throw new IllegalStateException("the process died while asking");
    });
    h.fire(Alerts.xid(NODE, "79"));
    assertThatThrownBy(() -> h.lookUntil(NODE, Stage.REPAIRING, 3)).hasMessage("the process died while asking");
    assertThat(h.episode(NODE).progress().task().orElseThrow().handle()).endsWith(" asked");

    h.stop();
    ClosedLoopHarness after = start(ec2());
    after.look(NODE);
    assertThat(ec2.requests("RebootInstances")).isZero();
    assertThat(after.episode(NODE).progress().note()).contains("not asked again");
    after.clock.advance(Duration.ofMinutes(31));
    after.lookUntil(NODE, Stage.REPAIR_FAILED, 1);
    assertThat(after.decisions(Reason.REBOOT_TIMEOUT)).hasSize(1);
    assertThat(ec2.requests("RebootInstances")).isZero();
  }

  @Test
  void anInstanceEc2DoesNotKnowFailsTheStepAndIsNotAskedAgain() {
    ClosedLoopHarness h = start(ec2());
    h.providerId(NODE, "aws:///us-west-2a/i-0fedcba9876543210");
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIR_FAILED, 3);
    assertThat(h.decisions(Reason.REPAIR_FAILED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("InvalidInstanceID.NotFound"));
    assertThat(ec2.requests("RebootInstances")).isEqualTo(1);
  }
}
