package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.Provisioners;
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
 * {@code replace: {provider: karpenter}} against the emulated API server holding NodeClaims built from a recorded
 * {@code karpenter.sh/v1} NodeClaim (its {@code karpenter.sh/termination} finalizer keeps a deleted claim, marked, until
 * Karpenter has terminated the node): the claim is deleted once through a lost answer and a restart; a node no claim
 * names, or a service whose config does not say Karpenter's RBAC is deployed, calls nothing; a node that never goes
 * times out for a human.
 */
class ReplaceKarpenterMockTest {
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-repeat-offender", "repeat", """
            - replace: {provider: karpenter, timeout: 1h}
      """);
  private static final String CLAIMS = "/apis/karpenter.sh/v1/nodeclaims";
  private static final ReplaceLimit ADMIT_ALL = node -> Optional.empty();

  @TempDir Path dir;
  private final List<ClosedLoopHarness> harnesses = new ArrayList<>();

  @AfterEach
  void close() {
    ClosedLoopHarness.closeAll(harnesses);
  }

  private ClosedLoopHarness start(Set<String> providers) {
    ClosedLoopHarness h = harnesses.isEmpty() ? new ClosedLoopHarness(dir, PLAYBOOKS, OutboundPorts.NONE, ADMIT_ALL, providers)
        : harnesses.get(0).restarted(dir, PLAYBOOKS, OutboundPorts.NONE, ADMIT_ALL);
    harnesses.add(h);
    return h;
  }

  private static Alert xid(String node) {
    return Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "fp" + Integer.toHexString(node.hashCode()),
        Map.of("node", node, "severity", "critical", "remediate", "true", "xid", "79"));
  }

  @Test
  void theNodeClaimIsDeletedOnceThroughALostAnswerAndARestart() {
    ClosedLoopHarness h = start(Set.of("karpenter"));
    String claim = Provisioners.nodeClaim(h.client, "gpu-node-0", "");
    Provisioners.nodeClaim(h.client, "gpu-node-1", "-other");
    h.server.loseAnswers("DELETE", CLAIMS + "/", 1);
    h.fire(xid("gpu-node-0"));
    h.fire(xid("gpu-node-0")); // the other Alertmanager of an HA pair
    h.look("gpu-node-0"); // admitted: stage replacing
    h.look("gpu-node-0"); // the delete is applied, its answer lost
    assertThat(h.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.REPLACING);
    assertThat(h.episode("gpu-node-0").progress().note()).contains("deleting NodeClaim " + claim).contains("504");
    assertThat(h.episode("gpu-node-0").progress().task().orElseThrow().handle()).isEmpty();
    // The finalizer keeps it, marked, while Karpenter drains and terminates the node.
    assertThat(Provisioners.nodeClaim(h.client, claim).orElseThrow().getMetadata().getDeletionTimestamp()).isNotNull();

    ClosedLoopHarness restarted = start(Set.of("karpenter")); // a restart before the delete was recorded
    restarted.clock.advance(Duration.ofSeconds(6));
    restarted.look("gpu-node-0");
    assertThat(restarted.episode("gpu-node-0").progress().task().orElseThrow().handle()).isEqualTo("NodeClaim " + claim);
    assertThat(restarted.decisions(Reason.REPLACE_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("NodeClaim " + claim + " is already being deleted (nothing sent)"));
    restarted.look("gpu-node-0");
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", CLAIMS)).containsExactly(
        "DELETE " + CLAIMS + "/" + claim);
    assertThat(Provisioners.nodeClaim(h.client, claim + "-other")).isPresent();

    restarted.client.nodes().withName("gpu-node-0").delete(); // Karpenter terminated it
    restarted.look("gpu-node-0");
    assertThat(restarted.decisions(Reason.REPLACED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("the Node object is gone: NodeClaim " + claim + " was replaced"));
  }

  @Test
  void aNodeNoNodeClaimNamesIsNotReplacedAndNothingIsDeleted() {
    ClosedLoopHarness h = start(Set.of("karpenter"));
    Provisioners.nodeClaim(h.client, "gpu-node-1", "");
    h.fire(xid("gpu-node-0"));
    h.look("gpu-node-0");
    assertThat(h.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.NEEDS_HUMAN);
    assertThat(h.decisions(Reason.PROVIDER_UNSUPPORTED)).singleElement().satisfies(d -> assertThat(d.detail())
        .isEqualTo("cannot replace gpu-node-0: no karpenter.sh/v1 NodeClaim has status.nodeName gpu-node-0 (not"
            + " provisioned by Karpenter); nothing was deleted"));
    assertThat(h.events("ProviderUnsupported")).hasSize(1);
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", CLAIMS)).isEmpty();
  }

  @Test
  void withoutCloudKarpenterInTheConfigNothingIsCalled() {
    ClosedLoopHarness h = start(Set.of());
    Provisioners.nodeClaim(h.client, "gpu-node-0", "");
    h.fire(xid("gpu-node-0"));
    h.look("gpu-node-0");
    assertThat(h.decisions(Reason.REPLACE_FAILED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("cloud.karpenter is not in the service config").contains("nothing was called"));
    assertThat(Provisioners.requests(h.server.requestLog(), "GET", CLAIMS)).isEmpty();
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", CLAIMS)).isEmpty();
  }

  @Test
  void aNodeThatNeverGoesTimesOutForAHuman() {
    ClosedLoopHarness h = start(Set.of("karpenter"));
    String claim = Provisioners.nodeClaim(h.client, "gpu-node-0", "");
    h.fire(xid("gpu-node-0"));
    h.lookUntil("gpu-node-0", Stage.REPLACING, 2);
    h.look("gpu-node-0");
    assertThat(h.decisions(Reason.REPLACE_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("NodeClaim " + claim + " deleted: Karpenter drains and terminates"));
    h.clock.advance(Duration.ofMinutes(61));
    h.look("gpu-node-0");
    assertThat(h.episode("gpu-node-0").progress().stage()).isEqualTo(Stage.NEEDS_HUMAN);
    assertThat(h.decisions(Reason.REPLACE_TIMEOUT)).singleElement().satisfies(d -> assertThat(d.detail())
        .isEqualTo("NodeClaim " + claim + " was asked to be replaced, but the Node object is still here after 1h"));
    assertThat(Provisioners.requests(h.server.requestLog(), "DELETE", CLAIMS)).hasSize(1);
  }
}
