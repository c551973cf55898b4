package io.gpuremediator.action;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.action.RebootAction.Method;
import io.gpuremediator.action.RebootAction.RebootSpec;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.testing.ForwardingCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The reboot step decided and acted over ports in memory: the bootID is recorded, the intent is written before the
 * request is sent, the request is sent once whatever comes back, and only a new bootID with Ready passes.
 */
class RebootActionTest {
  private static final RebootAction KIND = new RebootAction();
  private static final RebootSpec BY_EC2 = new RebootSpec(Method.AWS, Duration.ofMinutes(30), RebootAction.DEFAULT_IMAGE,
      Optional.empty(), false);

  private final List<String> rebooted = new ArrayList<>();
  private final List<String> warnings = Runs.warnings();
  private NodeInfo node = node("boot-1", true);

  private static NodeInfo node(String boot, boolean ready) {
    return new NodeInfo("gpu-node-0", Map.of(), Map.of(), List.of(), true, List.of(new NodeCondition("Ready",
        ready ? "True" : "False", "", "", null, null)), List.of(), boot, "", NodeLedger.EMPTY, Optional.empty());
  }

  private StepPorts ports() {
    ForwardingCluster cluster = new ForwardingCluster(new InMemoryCluster(List.of())) {
      @Override
      public Optional<NodeInfo> node(String name) {
        return Optional.of(node);
      }

      @Override
      public NodeIdentity identity(String name) {
        return new NodeIdentity(Optional.of("aws:///us-west-2a/i-0123456789abcdef0"), Optional.empty());
      }
    };
    OutboundPorts outside = new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE, InstanceHealth.NOT_CONFIGURED,
        instance -> rebooted.add(instance.instanceId()), BmcResets.NOT_CONFIGURED);
    return Runs.ports(cluster, outside, ReplaceLimit.NONE, Set.of());
  }

  private LongStepRun<RebootSpec> at(String handle, Duration after) {
    return Runs.run("gpu-node-0", BY_EC2, handle, Runs.T.plus(after), ports(), warnings);
  }

  @Test
  void theIntentIsWrittenFirstThenTheRebootIsSentOnceAndOnlyANewBootIdThatIsReadyPasses() {
    StepResult intent = KIND.look(at("", Duration.ZERO));
    assertThat(intent).isInstanceOfSatisfying(StepResult.Intent.class, i -> assertThat(i.handle())
        .isEqualTo("boot=boot-1 asked"));
    assertThat(rebooted).as("nothing is sent before the intent is recorded").isEmpty();

    StepResult sent = KIND.send(at("boot=boot-1 asked", Duration.ofSeconds(1)));
    assertThat(sent).isInstanceOfSatisfying(StepResult.Started.class, s -> assertThat(s.handle()).isEqualTo("boot=boot-1 sent"));
    assertThat(rebooted).containsExactly("i-0123456789abcdef0");

    assertThat(KIND.look(at("boot=boot-1 sent", Duration.ofMinutes(1)))).as("same bootID").isInstanceOf(StepResult.Running.class);
    node = node("boot-2", false);
    assertThat(KIND.look(at("boot=boot-1 sent", Duration.ofMinutes(2)))).as("booted, not Ready").isInstanceOf(StepResult.Running.class);
    node = node("boot-2", true);
    assertThat(KIND.look(at("boot=boot-1 sent", Duration.ofMinutes(3)))).isInstanceOf(StepResult.Succeeded.class);
    assertThat(rebooted).as("sent once").hasSize(1);
  }

  @Test
  void anIntentFoundAfterARestartIsTreatedAsAskedAndNeverSentAgain() {
    StepResult look = KIND.look(at("boot=boot-1 asked", Duration.ofMinutes(1)));
    assertThat(look).isInstanceOfSatisfying(StepResult.Running.class, r -> assertThat(r.note())
        .contains("the reboot was asked before a restart and is not asked again"));
    assertThat(rebooted).isEmpty();
  }

  @Test
  void aRebootThatIsSurelyNotAppliedIsRecordedWithoutTheIntentAndAskedAgainLater() {
    OutboundPorts throttled = new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE, InstanceHealth.NOT_CONFIGURED,
        instance -> {
          throw OutboundException.transientFailure("RequestLimitExceeded");
        }, BmcResets.NOT_CONFIGURED);
    LongStepRun<RebootSpec> run = Runs.run("gpu-node-0", BY_EC2, "boot=boot-1 asked", Runs.T, Runs.ports(ports().cluster(),
        throttled, ReplaceLimit.NONE, Set.of()), warnings);
    assertThat(KIND.send(run)).isInstanceOfSatisfying(StepResult.Recorded.class, r -> {
      assertThat(r.handle()).isEqualTo("boot=boot-1");
      assertThat(r.retryAt()).contains(Runs.T.plusSeconds(5));
    });
    assertThat(warnings).containsExactly("RebootNotAsked");
  }

  @Test
  void theHandleKeepsTheBootIdAndHowFarTheAskingWent() {
    assertThat(RebootHandle.parse("boot=abc")).isEqualTo(new RebootHandle("abc", RebootHandle.State.RECORDED));
    assertThat(RebootHandle.parse("boot=abc asked").at(RebootHandle.State.SENT).value()).isEqualTo("boot=abc sent");
    assertThat(Method.REDFISH.way().description()).isEqualTo("its BMC (Redfish ComputerSystem.Reset, the strongest restart it allows)");
  }
}
