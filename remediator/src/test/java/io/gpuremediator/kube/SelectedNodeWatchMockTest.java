package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.episode.EngineBuilder;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.node.UnwatchedNodes;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.ForwardingCluster;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.Tokens;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node watch filtered by {@code node_selector}, against the fabric8 mock API server in CRUD mode over HTTP: only
 * selected nodes and nodes carrying our state are cached, and a node outside the selector is told apart from one that
 * does not exist: where it is asked by a command, and by the service in the background, its refusals never waiting on
 * the read.
 */
@EnableKubernetesMockClient(crud = true)
class SelectedNodeWatchMockTest {
  private static final LabelSelector GPU = LabelSelector.parse("nvidia.com/gpu.present=true").value();

  KubernetesClient mockClient;

  private KubernetesClient client;
  private Fabric8Cluster cluster;
  private RemediationEngine engine;

  @BeforeEach
  void start() {
    client = Nodes.noRetry(mockClient);
    client.nodes().resource(Nodes.gpu("gpu-1", "10.0.0.1")).create();
    client.nodes().resource(Nodes.gpu("gpu-2", "10.0.0.2")).create();
    client.nodes().resource(Nodes.node("cpu-1", "10.0.1.1", Map.of("kubernetes.io/os", "linux"))).create();
    cluster = new Fabric8Cluster(client, "test", GPU.apiSelector(), ApiThrottle.unlimited(),
        LedgerSigning.signedOnly(LedgerSeal.withKey(Tokens.LEDGER_KEY.getBytes(StandardCharsets.UTF_8))));
    cluster.start();
    await().atMost(Duration.ofSeconds(10)).until(cluster::isReady);
    PlaybookSet set = Playbooks.immediate();
    engine = EngineBuilder.of(() -> set, cluster, new NodeResolver(List.of("node"), GPU, cluster), Clock.systemUTC())
        .build();
  }

  @AfterEach
  void stop() {
    cluster.close();
    client.close();
  }

  @Test
  void cachesOnlyTheSelectedNodes() {
    assertThat(cluster.nodes()).extracting(NodeInfo::name).containsExactlyInAnyOrder("gpu-1", "gpu-2");
  }

  @Test
  void anAlertOnANodeOutsideTheSelectorIsToldApartFromAnUnknownNode() {
    Decision outside = engine.decide(Alerts.xid("cpu-1", "79"));
    assertThat(outside.reason()).isEqualTo(Reason.NODE_NOT_SELECTED);
    assertThat(outside.detail()).contains("does not match node_selector");
    Decision unknown = engine.decide(Alerts.xid("no-such-node", "79"));
    assertThat(unknown.reason()).isEqualTo(Reason.NODE_NOT_FOUND);
    assertThat(unknown.detail()).isEqualTo("no node named no-such-node");
    assertThat(client.nodes().withName("cpu-1").get().getMetadata().getAnnotations()).isNullOrEmpty();
  }

  @Test
  void theServicesRefusalOfANodeOutsideTheWatchNeverWaitsOnItsReadAndTheNextNamesItPrecisely() throws Exception {
    List<Thread> readers = new CopyOnWriteArrayList<>();
    Cluster counted = new ForwardingCluster(cluster) {
      @Override
      public Optional<NodeInfo> unwatchedNode(String name) throws ClusterException {
        readers.add(Thread.currentThread());
        return super.unwatchedNode(name);
      }
    };
    try (UnwatchedNodes unwatched = UnwatchedNodes.background(counted, GPU, Clock.systemUTC())) {
      PlaybookSet set = Playbooks.immediate();
      RemediationEngine service = EngineBuilder.of(() -> set, counted, new NodeResolver(List.of("node"), GPU, counted,
          unwatched), Clock.systemUTC()).build();
      for (int i = 0; i < 1000; i++) {
        assertThat(service.decide(Alerts.xid("absent-" + i, "79")).reason()).isEqualTo(Reason.NODE_NOT_FOUND);
      }
      Decision first = service.decide(Alerts.xid("cpu-1", "79"));
      assertThat(first.reason()).isEqualTo(Reason.NODE_NOT_FOUND);
      assertThat(first.detail()).contains("is being read");
      await().atMost(Duration.ofSeconds(20)).until(() -> service.decide(Alerts.xid("cpu-1", "79")).reason()
          == Reason.NODE_NOT_SELECTED);
      assertThat(readers).as("reads made on the thread that decides").doesNotContain(Thread.currentThread()).isNotEmpty();
      await().atMost(Duration.ofSeconds(20)).until(() -> service.decide(Alerts.xid("absent-999", "79")).detail()
          .equals("no node named absent-999"));
    }
  }

  @Test
  void readsOfNodesOutsideTheWatchAreRateLimited() {
    List<Reason> reasons = IntStream.range(0, 20)
        .mapToObj(i -> engine.decide(Alerts.xid("cpu-1", "79")).reason()).toList();
    assertThat(reasons).contains(Reason.NODE_NOT_SELECTED, Reason.NODE_NOT_FOUND);
    assertThat(engine.decide(Alerts.xid("no-such-node", "79")).detail()).contains("over their rate");
  }

  @Test
  void aQuarantinedNodeRelabelledOutOfTheSelectorStaysInViewUntilItsStateIsGone() throws Exception {
    Alert alert = Alerts.xid("gpu-1", "79");
    assertThat(engine.decide(alert).reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    assertThat(client.nodes().withName("gpu-1").get().getMetadata().getLabels()).containsEntry(NodeKeys.MANAGED_LABEL, "true");

    client.nodes().withName("gpu-1").edit(n -> {
      n.getMetadata().getLabels().remove("nvidia.com/gpu.present");
      return n;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("gpu-1")
        .map(n -> !n.labels().containsKey("nvidia.com/gpu.present")).orElse(false));
    assertThat(cluster.node("gpu-1").orElseThrow().ledger().holdsChanges()).isTrue();

    // A resolved alert is refused for a node outside the selector (nothing outside it is touched), but the node is still
    // in view: the loop and the human controls can finish or undo its episode. Once our state is gone, so is the node.
    assertThat(engine.decide(Alerts.resolved(alert)).reason()).isEqualTo(Reason.NODE_NOT_SELECTED);
    cluster.modifyNode("gpu-1", n -> new Cluster.Edited<>(new NodeInfo(n.name(), n.labels(), n.annotations(), List.of(),
        false, n.conditions(), n.internalIps(), n.bootId(), n.resourceVersion(), NodeLedger.EMPTY, n.ledgerFault()), null));
    assertThat(client.nodes().withName("gpu-1").get().getMetadata().getLabels()).doesNotContainKey(NodeKeys.MANAGED_LABEL);
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("gpu-1").isEmpty());
    assertThat(cluster.nodes()).extracting(NodeInfo::name).containsExactly("gpu-2");
  }

  @Test
  void aSelectedNodeWithoutOurStateLeavesTheCacheWhenRelabelled() {
    client.nodes().withName("gpu-2").edit(n -> {
      n.getMetadata().getLabels().put("nvidia.com/gpu.present", "false");
      return n;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("gpu-2").isEmpty());
  }

  @Test
  void aDeletedNodeCarryingOurStateLeavesTheCache() {
    assertThat(engine.decide(Alerts.xid("gpu-1", "79")).reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("gpu-1").map(n -> n.labels()
        .containsKey(NodeKeys.MANAGED_LABEL)).orElse(false));
    client.nodes().withName("gpu-1").delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("gpu-1").isEmpty());
  }

  @Test
  void aNodeLabelledIntoTheSelectorIsCached() {
    client.nodes().withName("cpu-1").edit(n -> {
      n.getMetadata().getLabels().put("nvidia.com/gpu.present", "true");
      return n;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("cpu-1").isPresent());
  }
}
