package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.outbound.aws.AutoScalingInstanceHealth;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.safety.SafetyListener;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.AutoScalingStub;
import io.gpuremediator.testing.AwsQueryStub.Answer;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Rate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The replace step against the emulated API server and a local Auto Scaling endpoint answering the query
 * protocol: one SetInstanceHealth per episode whatever the duplicates, throttling, lost answers and restarts; a
 * providerID of another cloud, or none, calls nothing; the fleet's replacement limit holds.
 */
class ReplaceMockTest {
  private static final String PLAYBOOKS = """
      playbooks:
        - name: neuron-hardware-error
          match: ['alertname="NeuronHardwareError"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: neuron, effect: NoSchedule}
            - cordon: {}
            - replace: {provider: aws, timeout: 1h}
      """;
  private static final String INSTANCE = "i-0123456789abcdef0";

  @TempDir Path dir;
  private AutoScalingStub aws;
  private final List<AutoScalingInstanceHealth> clients = new ArrayList<>();
  private final List<ClosedLoopHarness> harnesses = new ArrayList<>();
  private FleetGate gate;

  @BeforeEach
  void stub() throws Exception {
    aws = new AutoScalingStub();
    aws.instance(INSTANCE, "gpu-trn1-a");
    aws.instance("i-0fedcba9876543210", "gpu-trn1-a");
  }

  @AfterEach
  void close() throws Exception {
    ClosedLoopHarness.closeAll(harnesses);
    clients.forEach(AutoScalingInstanceHealth::close);
    aws.close();
  }

  private ClosedLoopHarness start(int replacements) throws Exception {
    ClosedLoopHarness first = harnesses.isEmpty() ? null : harnesses.get(0);
    ClosedLoopHarness h = first == null ? new ClosedLoopHarness(dir, PLAYBOOKS, OutboundPorts.NONE)
        : first.restarted(dir, PLAYBOOKS, OutboundPorts.NONE);
    harnesses.add(h);
    // The harness is built before its ports can see its cluster: a second instance over the same server gets the ports.
    gate = new FleetGate(new SafetyLimits(new CountOrPercent(100, true), new Rate(100, Duration.ofHours(1)), 100,
        Duration.ofMinutes(10), Optional.empty(), Duration.ofHours(1), new Rate(replacements, Duration.ofHours(24))),
        new InMemoryFleetStore(), h.cluster::nodes, h.cluster::generation, SafetyListener.NONE, h.clock);
    gate.load();
    AutoScalingInstanceHealth client = AutoScalingInstanceHealth.create("us-west-2", Optional.of(aws.endpoint()),
        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "secret")), OutboundListener.NONE);
    clients.add(client);
    ClosedLoopHarness ported = h.restarted(dir, PLAYBOOKS, new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE,
        client), gate::admitReplacement);
    harnesses.add(ported);
    return ported;
  }

  private static Alert neuron(String node) {
    return Alerts.alert(AlertStatus.FIRING, "NeuronHardwareError", "fp" + Integer.toHexString(node.hashCode()),
        Map.of("node", node, "severity", "critical", "remediate", "true"));
  }


  @Test
  void oneSetInstanceHealthPerEpisodeThroughDuplicatesThrottlingALostAnswerAndARestart() throws Exception {
    ClosedLoopHarness h = start(2);
    h.providerId("gpu-node-0", "aws:///us-west-2a/" + INSTANCE);
    aws.next(Answer.THROTTLED, Answer.RESOURCE_CONTENTION, Answer.APPLIED_ANSWER_LOST);
    h.fire(neuron("gpu-node-0"));
    h.fire(neuron("gpu-node-0")); // the other Alertmanager of an HA pair
    h.look("gpu-node-0"); // admitted: stage replacing
    h.look("gpu-node-0"); // throttled
    assertThat(h.episode("gpu-node-0").progress().note()).contains("Throttling").contains("retried at");
    h.look("gpu-node-0"); // not before its retry time: nothing sent
    assertThat(aws.setInstanceHealthRequests()).isEqualTo(1);
    h.clock.advance(Duration.ofSeconds(6));
    h.look("gpu-node-0"); // busy
    assertThat(h.episode("gpu-node-0").progress().note()).contains("ResourceContention");
    h.clock.advance(Duration.ofSeconds(6));
    h.look("gpu-node-0"); // applied, its answer lost
    assertThat(aws.applied()).containsExactly(INSTANCE);
    assertThat(h.episode("gpu-node-0").progress().task().orElseThrow().handle()).isEmpty();

    ClosedLoopHarness restarted = start(2); // a restart before the mark was recorded
    restarted.clock.advance(Duration.ofSeconds(6));
    restarted.look("gpu-node-0");
    assertThat(restarted.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.REPLACING);
    assertThat(restarted.episode("gpu-node-0").progress().task().orElseThrow().handle()).isEqualTo(INSTANCE);
    assertThat(restarted.decisions(Reason.REPLACE_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("already marked Unhealthy (nothing sent)"));
    restarted.look("gpu-node-0");
    restarted.look("gpu-node-0");
    assertThat(aws.applied()).containsExactly(INSTANCE);
    assertThat(aws.setInstanceHealthRequests()).isEqualTo(3);
    assertThat(aws.calls()).filteredOn(c -> c.action().equals("SetInstanceHealth"))
        .allSatisfy(c -> assertThat(c.params()).containsEntry("HealthStatus", "Unhealthy")
            .containsEntry("ShouldRespectGracePeriod", "true").containsEntry("InstanceId", INSTANCE));

    restarted.client.nodes().withName("gpu-node-0").delete(); // the group terminated it; the node lifecycle removed it
    restarted.look("gpu-node-0");
    assertThat(restarted.decisions(Reason.REPLACED)).singleElement().satisfies(d -> {
      assertThat(d.detail()).contains("instance " + INSTANCE + " was replaced").contains("NeuronHardwareError")
          .contains("taint/gpu-remediator.io/unhealthy");
      assertThat(d.node()).isEqualTo("gpu-node-0");
    });
    restarted.look("gpu-node-0");
    assertThat(restarted.decisions(Reason.REPLACED)).hasSize(1);
  }

  @Test
  void aProviderOfAnotherCloudOrNoneChangesNothingOutside() throws Exception {
    ClosedLoopHarness h = start(2);
    h.providerId("gpu-node-0", "gce://my-project/us-central1-a/gke-gpu-pool-1234");
    h.fire(neuron("gpu-node-0"));
    h.fire(neuron("gpu-node-1")); // no providerID at all
    h.look("gpu-node-0");
    h.look("gpu-node-1");
    assertThat(h.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.NEEDS_HUMAN);
    assertThat(h.episode("gpu-node-1").progress().stage()).isEqualTo(Stage.NEEDS_HUMAN);
    assertThat(h.decisions(Reason.PROVIDER_UNSUPPORTED)).extracting(d -> d.detail()).containsExactlyInAnyOrder(
        "cannot replace gpu-node-0: its providerID is GKE (gce): \"gce://my-project/us-central1-a/gke-gpu-pool-1234\";"
            + " nothing was called",
        "cannot replace gpu-node-1: its providerID is no spec.providerID; nothing was called");
    h.look("gpu-node-0");
    assertThat(aws.calls()).isEmpty();
    assertThat(gate.admitReplacement("probe")).isEmpty(); // the replacement limit was not spent by the refusals
  }

  @Test
  void anInstanceInNoGroupNeedsAHumanWhoMayRetry() throws Exception {
    ClosedLoopHarness h = start(2);
    h.providerId("gpu-node-0", "aws:///us-west-2b/i-0aaaaaaaaaaaaaaaa");
    h.fire(neuron("gpu-node-0"));
    h.look("gpu-node-0");
    h.look("gpu-node-0");
    assertThat(h.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.NEEDS_HUMAN);
    assertThat(h.decisions(Reason.REPLACE_FAILED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("is in no Auto Scaling group"));
    assertThat(aws.setInstanceHealthRequests()).isZero();

    aws.instance("i-0aaaaaaaaaaaaaaaa", "gpu-p5-b"); // the operator put it in its group
    assertThat(h.controls.retry("gpu-node-0", "instance added to gpu-p5-b", "test").status())
        .isEqualTo(HumanControls.Status.DONE);
    h.lookUntil("gpu-node-0", Stage.REPLACING, 3);
    h.look("gpu-node-0");
    assertThat(aws.applied()).containsExactly("i-0aaaaaaaaaaaaaaaa");
  }

  @Test
  void theReplaceRateLimitHoldsTheNextNodeUntilTheWindowMoves() throws Exception {
    ClosedLoopHarness h = start(1);
    h.providerId("gpu-node-0", "aws:///us-west-2a/" + INSTANCE);
    h.providerId("gpu-node-1", "aws:///us-west-2a/i-0fedcba9876543210");
    h.fire(neuron("gpu-node-0"));
    h.fire(neuron("gpu-node-1"));
    h.lookUntil("gpu-node-0", Stage.REPLACING, 3);
    h.look("gpu-node-1");
    h.look("gpu-node-1");
    assertThat(h.episode("gpu-node-1").progress().stage()).isEqualTo(Stage.QUARANTINED);
    assertThat(h.episode("gpu-node-1").progress().note()).startsWith("waiting to replace: replace_rate_limit 1/24h used up");
    assertThat(h.decisions(Reason.REPLACE_RATE_LIMITED)).hasSize(1);
    assertThat(aws.applied()).containsExactly(INSTANCE);
    h.clock.advance(Duration.ofHours(25));
    h.lookUntil("gpu-node-1", Stage.REPLACING, 3);
    h.look("gpu-node-1");
    assertThat(aws.applied()).containsExactly(INSTANCE, "i-0fedcba9876543210");
  }

  @Test
  void aNodeStillThereAtTheTimeoutNeedsAHuman() throws Exception {
    ClosedLoopHarness h = start(2);
    h.providerId("gpu-node-0", "aws:///us-west-2a/" + INSTANCE);
    h.fire(neuron("gpu-node-0"));
    h.look("gpu-node-0");
    h.look("gpu-node-0");
    assertThat(h.decisions(Reason.REPLACE_STARTED)).hasSize(1);
    h.clock.advance(Duration.ofMinutes(61));
    h.look("gpu-node-0");
    assertThat(h.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.NEEDS_HUMAN);
    assertThat(h.decisions(Reason.REPLACE_TIMEOUT)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("instance " + INSTANCE + " was asked to be replaced, but the Node object is"
            + " still here after 1h"));
  }
}
