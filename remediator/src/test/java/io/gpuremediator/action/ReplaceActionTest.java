package io.gpuremediator.action;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.action.ReplaceAction.ReplaceSpec;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeOwner;
import io.gpuremediator.node.ReplaceProvider;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.testing.ForwardingCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The replace step decided and acted over ports in memory: a provider through the Kubernetes API must be deployed, the
 * node must have an owner object, the fleet's budget admits, and the owner is deleted once. A provider that is only a
 * row of {@link ReplaceProvider} (an owner object, no class of its own) replaces a node the same way.
 */
class ReplaceActionTest {
  private static final ReplaceAction KIND = new ReplaceAction();
  private static final NodeOwner.Kind CLAIMS = ReplaceProvider.KARPENTER.owner().orElseThrow();

  /** Nodes in memory, with owner objects the test puts there, deletions recorded. */
  private static final class Owners extends ForwardingCluster {
    final Map<String, NodeOwner> byNode = new HashMap<>();
    final List<String> deleted = new ArrayList<>();

    Owners() {
      super(new InMemoryCluster(List.of(NodeInfo.named("gpu-node-0", Map.of()))));
    }

    @Override
    public Optional<NodeOwner> ownerOf(NodeOwner.Kind kind, String node) {
      return Optional.ofNullable(byNode.get(node)).filter(o -> o.kind().equals(kind));
    }

    @Override
    public NodeIdentity identity(String name) {
      return new NodeIdentity(Optional.of("aws:///us-west-2a/i-0123456789abcdef0"), Optional.empty());
    }

    @Override
    public void deleteOwner(NodeOwner owner) throws ClusterException {
      deleted.add(owner.toString());
      byNode.replaceAll((node, o) -> o.equals(owner) ? new NodeOwner(o.kind(), o.namespace(), o.name(), o.uid(), true,
          o.controller(), o.annotations()) : o);
    }
  }

  private final Owners cluster = new Owners();
  private final List<String> warnings = Runs.warnings();

  private static ReplaceSpec karpenter() {
    return new ReplaceSpec("karpenter", ReplaceVia.DELETE, Duration.ofHours(1), false);
  }

  private StepPorts ports(ReplaceLimit budget, Set<String> deployed) {
    return Runs.ports(cluster, OutboundPorts.NONE, budget, deployed);
  }

  @Test
  void aKubernetesProviderThatIsNotDeployedCallsNothing() throws Exception {
    cluster.byNode.put("gpu-node-0", new NodeOwner(CLAIMS, "", "default-x9wxq", "u1", false, Optional.empty(), Map.of()));
    StepStart start = KIND.start(Runs.run("gpu-node-0", karpenter(), "", Runs.T, ports(node -> Optional.empty(), Set.of()),
        warnings));
    assertThat(start).isInstanceOfSatisfying(StepStart.Impossible.class, i -> {
      assertThat(i.reason()).isEqualTo(Reason.REPLACE_FAILED);
      assertThat(i.why()).contains("cloud.karpenter is not in the service config (the deploy/karpenter overlay");
    });
    assertThat(cluster.deleted).isEmpty();
  }

  @Test
  void aNodeNoOwnerObjectNamesIsNotReplacedThisWay() throws Exception {
    StepStart start = KIND.start(Runs.run("gpu-node-0", karpenter(), "", Runs.T, ports(node -> Optional.empty(),
        Set.of("karpenter")), warnings));
    assertThat(start).isInstanceOfSatisfying(StepStart.Impossible.class, i -> {
      assertThat(i.reason()).isEqualTo(Reason.PROVIDER_UNSUPPORTED);
      assertThat(i.why()).isEqualTo("cannot replace gpu-node-0: no karpenter.sh/v1 NodeClaim has status.nodeName"
          + " gpu-node-0 (not provisioned by Karpenter); nothing was deleted");
    });
  }

  @Test
  void theFleetsBudgetHoldsAReplacementBack() throws Exception {
    cluster.byNode.put("gpu-node-0", new NodeOwner(CLAIMS, "", "default-x9wxq", "u1", false, Optional.empty(), Map.of()));
    ReplaceLimit usedUp = node -> Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED, "replace_rate_limit 2/24h used up"));
    StepStart start = KIND.start(Runs.run("gpu-node-0", karpenter(), "", Runs.T, ports(usedUp, Set.of("karpenter")), warnings));
    assertThat(start).isInstanceOfSatisfying(StepStart.Wait.class, w -> assertThat(w.reason())
        .isEqualTo(Reason.REPLACE_RATE_LIMITED));
  }

  @Test
  void theOwnerIsDeletedOnceAndALookAfterALostAnswerSendsNothing() throws Exception {
    cluster.byNode.put("gpu-node-0", new NodeOwner(CLAIMS, "", "default-x9wxq", "u1", false, Optional.empty(), Map.of()));
    StepPorts ports = ports(node -> Optional.empty(), Set.of("karpenter"));
    assertThat(KIND.start(Runs.run("gpu-node-0", karpenter(), "", Runs.T, ports, warnings))).isInstanceOf(StepStart.Go.class);
    StepResult asked = KIND.look(Runs.run("gpu-node-0", karpenter(), "", Runs.T, ports, warnings));
    assertThat(asked).isInstanceOfSatisfying(StepResult.Started.class, s -> {
      assertThat(s.handle()).isEqualTo("NodeClaim default-x9wxq");
      assertThat(s.note()).startsWith("NodeClaim default-x9wxq deleted: Karpenter drains and terminates gpu-node-0");
    });
    // The answer was lost (a restart before the handle was written): a fresh look finds it deleting and sends nothing.
    StepResult again = KIND.look(Runs.run("gpu-node-0", karpenter(), "", Runs.T.plusSeconds(5), ports, warnings));
    assertThat(again).isInstanceOfSatisfying(StepResult.Started.class, s -> assertThat(s.note())
        .startsWith("NodeClaim default-x9wxq is already being deleted (nothing sent)"));
    assertThat(cluster.deleted).containsExactly("NodeClaim default-x9wxq");
    StepResult waiting = KIND.look(Runs.run("gpu-node-0", karpenter(), "NodeClaim default-x9wxq", Runs.T.plusSeconds(10),
        ports, warnings));
    assertThat(waiting).isInstanceOf(StepResult.Running.class);
    StepResult late = KIND.look(Runs.run("gpu-node-0", karpenter(), "NodeClaim default-x9wxq", Runs.T.plus(Duration.ofHours(2)),
        ports, warnings));
    assertThat(late).isInstanceOfSatisfying(StepResult.Failed.class, f -> assertThat(f.reason())
        .isEqualTo(Reason.REPLACE_TIMEOUT));
  }

  @Test
  void aProviderThatIsOnlyARowReplacesThroughItsOwnerObject() throws Exception {
    NodeOwner.Kind pools = new NodeOwner.Kind("example.io/v1", "PoolMember", "poolmembers", true, "nodeRef");
    ReplaceProvider row = new ReplaceProvider("example-pool", "example_pool", "deploy/example-pool", Optional.of(pools),
        "the pool", "drains and replaces the node");
    cluster.byNode.put("gpu-node-0", new NodeOwner(pools, "team-a", "member-1", "u9", false, Optional.empty(), Map.of()));
    Replacement way = new OwnerObjectReplacement(row);
    ReplaceRequest request = new ReplaceRequest("example-pool", ReplaceVia.DELETE, Duration.ofHours(1));
    StepPorts ports = ports(node -> Optional.empty(), Set.of("example-pool"));
    var run = Runs.run("gpu-node-0", karpenter(), "", Runs.T, ports, warnings);
    assertThat(way.what(request, "gpu-node-0")).isEqualTo("replace gpu-node-0: delete its the pool PoolMember (the pool"
        + " drains and replaces the node), then wait up to 1h for the Node object to go");
    assertThat(way.check(run, request)).isEmpty();
    assertThat(way.ask(run, request)).isInstanceOfSatisfying(StepResult.Started.class, s -> assertThat(s.handle())
        .isEqualTo("PoolMember team-a/member-1"));
    assertThat(cluster.deleted).containsExactly("PoolMember team-a/member-1");
  }

  @Test
  void anInstanceInsideItsGracePeriodIsAskedAgainWhenTheGracePeriodEndsNotBefore() throws Exception {
    InstanceHealth young = instance -> {
      throw OutboundException.notYet("ValidationError: The age of the instance (986 seconds) is less than the configured"
          + " grace period of 1500 seconds", Duration.ofSeconds(514));
    };
    StepPorts ports = Runs.ports(cluster, new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE, young),
        node -> Optional.empty(), Set.of());
    ReplaceSpec aws = new ReplaceSpec("aws", ReplaceVia.DELETE, Duration.ofHours(1), false);
    StepResult look = KIND.look(Runs.run("gpu-node-0", aws, "", Runs.T, ports, warnings));
    assertThat(look).isInstanceOfSatisfying(StepResult.Running.class, r -> {
      assertThat(r.retryAt()).contains(Runs.T.plusSeconds(514));
      assertThat(r.note()).contains("grace period");
    });
  }
}
