package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.safety.SafetyListener;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.Provisioners;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Rate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replace: {provider: cluster-api}} against the emulated API server holding Machines and the node annotations
 * Cluster API sets: a Machine a MachineSet controls is deleted (in whatever namespace the node names); an orphan, or
 * none, calls nothing; {@code via: remediate_annotation} annotates once and leaves the rest to the MachineHealthCheck;
 * the fleet's replacement limit holds as for every provider.
 */
class ReplaceClusterApiMockTest {
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-repeat-offender", "repeat", """
            - replace: {provider: cluster-api%s, timeout: 1h}
      """);
  private static final String MACHINES = "/apis/cluster.x-k8s.io/v1beta1/namespaces/";

  @TempDir Path dir;
  private final List<ClosedLoopHarness> harnesses = new ArrayList<>();
  private ClosedLoopHarness h;
  private FleetGate gate;

  @AfterEach
  void close() {
    ClosedLoopHarness.closeAll(harnesses);
  }

  /** The harness is built before its ports can see its cluster: a second instance over the same server gets the ports. */
  private void start(String via, int replacements) throws Exception {
    String yaml = String.format(PLAYBOOKS, via);
    ClosedLoopHarness first = new ClosedLoopHarness(dir, yaml, OutboundPorts.NONE, Set.of("cluster-api"));
    harnesses.add(first);
    gate = new FleetGate(new SafetyLimits(new CountOrPercent(100, true), new Rate(100, Duration.ofHours(1)), 100,
        Duration.ofMinutes(10), Optional.empty(), Duration.ofHours(1), new Rate(replacements, Duration.ofHours(24))),
        new InMemoryFleetStore(), first.cluster::nodes, first.cluster::generation, SafetyListener.NONE, first.clock);
    gate.load();
    h = first.restarted(dir, yaml, OutboundPorts.NONE, gate::admitReplacement);
    harnesses.add(h);
  }

  private static Alert xid(String node) {
    return Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "fp" + Integer.toHexString(node.hashCode()),
        Map.of("node", node, "severity", "critical", "remediate", "true", "xid", "79"));
  }

  @Test
  void aMachineItsMachineSetControlsIsDeletedInTheNamespaceTheNodeNames() throws Exception {
    start("", 2);
    Provisioners.machine(h.client, "team-b", "gpu-md-0-abcde", "gpu-node-0", Optional.of("gpu-md-0-7f9c"));
    Provisioners.machine(h.client, "default", "gpu-md-0-abcde", "gpu-node-1", Optional.of("gpu-md-0-7f9c"));
    h.fire(xid("gpu-node-0"));
    h.lookUntil("gpu-node-0", Stage.REPLACING, 2);
    h.look("gpu-node-0");
    h.look("gpu-node-0");
    assertThat(h.decisions(Reason.REPLACE_STARTED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("Machine team-b/gpu-md-0-abcde deleted: its MachineSet/gpu-md-0-7f9c creates another"));
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", MACHINES)).containsExactly(
        "DELETE " + MACHINES + "team-b/machines/gpu-md-0-abcde");
    assertThat(Provisioners.machine(h.client, "default", "gpu-md-0-abcde")).isPresent();

    h.client.nodes().withName("gpu-node-0").delete(); // the Machine controller deleted the node
    h.look("gpu-node-0");
    assertThat(h.decisions(Reason.REPLACED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("Machine team-b/gpu-md-0-abcde was replaced"));
  }

  @Test
  void aNodeWithoutTheAnnotationsIsFoundByItsMachinesNodeRef() throws Exception {
    start("", 2);
    Provisioners.machine(h.client, "team-c", "gpu-md-1-fghij", "gpu-node-2", Optional.of("gpu-md-1-1a2b"), false);
    h.fire(xid("gpu-node-2"));
    h.lookUntil("gpu-node-2", Stage.REPLACING, 2);
    h.look("gpu-node-2");
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", MACHINES)).containsExactly(
        "DELETE " + MACHINES + "team-c/machines/gpu-md-1-fghij");
    assertThat(h.episode("gpu-node-2").progress().note()).isEqualTo("Machine team-c/gpu-md-1-fghij is being deleted;"
        + " waiting for the Node object to go");
  }

  @Test
  void anOrphanMachineOrNoneIsNotReplacedAndNothingIsCalled() throws Exception {
    start("", 2);
    Provisioners.machine(h.client, "default", "gpu-orphan", "gpu-node-0", Optional.empty());
    h.fire(xid("gpu-node-0"));
    h.fire(xid("gpu-node-1")); // no Cluster API annotations at all
    h.look("gpu-node-0");
    h.look("gpu-node-1");
    assertThat(h.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.NEEDS_HUMAN);
    assertThat(h.decisions(Reason.PROVIDER_UNSUPPORTED)).extracting(d -> d.detail()).containsExactlyInAnyOrder(
        "cannot replace gpu-node-0: Machine default/gpu-orphan has no controller (an orphan Machine): nothing would bring"
            + " another back; nothing was called",
        "cannot replace gpu-node-1: it has no cluster.x-k8s.io/machine and cluster.x-k8s.io/cluster-namespace"
            + " annotations, and no Machine's status.nodeRef names it (not a Cluster API machine); nothing was called");
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", MACHINES)).isEmpty();
    assertThat(Provisioners.requests(h.server.requestLog(), "PATCH", MACHINES)).isEmpty();
    assertThat(gate.admitReplacement("probe")).isEmpty(); // the refusals spent none of the replacement limit
  }

  @Test
  void theRemediateAnnotationIsSetOnceAndTheMachineHealthCheckDoesTheRest() throws Exception {
    start(", via: remediate_annotation", 2);
    Provisioners.machine(h.client, "default", "gpu-md-0-abcde", "gpu-node-0", Optional.of("gpu-md-0-7f9c"));
    h.fire(xid("gpu-node-0"));
    h.lookUntil("gpu-node-0", Stage.REPLACING, 2);
    h.look("gpu-node-0");
    h.look("gpu-node-0");
    assertThat(Provisioners.machine(h.client, "default", "gpu-md-0-abcde").orElseThrow().getMetadata().getAnnotations())
        .containsEntry("cluster.x-k8s.io/remediate-machine", "");
    assertThat(h.decisions(Reason.REPLACE_STARTED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("annotated cluster.x-k8s.io/remediate-machine: its MachineHealthCheck remediates it"));
    assertThat(Provisioners.requests(h.server.requestLog(), "PATCH", MACHINES)).hasSize(1);
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", MACHINES)).isEmpty();
  }

  @Test
  void theReplaceRateLimitHoldsTheNextMachine() throws Exception {
    start("", 1);
    Provisioners.machine(h.client, "default", "gpu-md-0-aaaaa", "gpu-node-0", Optional.of("gpu-md-0-7f9c"));
    Provisioners.machine(h.client, "default", "gpu-md-0-bbbbb", "gpu-node-1", Optional.of("gpu-md-0-7f9c"));
    h.fire(xid("gpu-node-0"));
    h.fire(xid("gpu-node-1"));
    h.lookUntil("gpu-node-0", Stage.REPLACING, 2);
    h.look("gpu-node-0");
    h.look("gpu-node-1");
    assertThat(h.episode("gpu-node-1").progress().note()).startsWith("waiting to replace: replace_rate_limit 1/24h used up");
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", MACHINES)).containsExactly(
        "DELETE " + MACHINES + "default/machines/gpu-md-0-aaaaa");
  }
}
