package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.episode.EngineBuilder;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.Tokens;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The adapter against the fabric8 mock API server in CRUD mode, over HTTP. */
@EnableKubernetesMockClient(crud = true)
class Fabric8ClusterMockTest {
  KubernetesMockServer server;
  KubernetesClient mockClient;
  @TempDir Path dir;

  private KubernetesClient client;
  private Fabric8Cluster cluster;

  @BeforeEach
  void start() {
    client = Nodes.noRetry(mockClient);
    client.nodes().resource(Nodes.gpu("n1", "10.0.0.1")).create();
    client.nodes().resource(Nodes.gpu("n2", "10.0.0.2")).create();
    cluster = new Fabric8Cluster(client, "test", Tokens.LEDGER_KEY.getBytes(StandardCharsets.UTF_8));
    cluster.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.isReady() && cluster.node("n2").isPresent());
  }

  @AfterEach
  void stop() {
    cluster.close();
    client.close();
  }

  private RemediationEngine engine(PlaybookSet set) {
    return EngineBuilder.of(() -> set, cluster, new NodeResolver(List.of("node", "instance"),
        LabelSelector.parse("nvidia.com/gpu.present=true").value(), cluster), Clock.systemUTC()).build();
  }

  private static PlaybookSet shipped() {
    return Playbooks.immediate();
  }

  private Node stored(String name) {
    return client.nodes().withName(name).get();
  }

  @Test
  void quarantineWritesTaintCordonLedgerConditionAndEvent() {
    assertThat(engine(shipped()).decide(Alerts.xid("n1", "79")).reason()).isEqualTo(Reason.ACTIONS_APPLIED);
    Node n = stored("n1");
    assertThat(n.getSpec().getTaints()).extracting(Taint::getKey, Taint::getValue, Taint::getEffect)
        .containsExactly(Tuple.tuple("gpu-remediator.io/unhealthy", "xid-79", "NoSchedule"));
    assertThat(n.getSpec().getUnschedulable()).isTrue();
    assertThat(n.getMetadata().getAnnotations().get(NodeKeys.LEDGER_ANNOTATION))
        .contains("\"cordon\":{\"holders\":[\"" + Alerts.xid("n1", "79").fingerprint() + "\"]}");
    assertThat(n.getStatus().getConditions()).anySatisfy(c -> {
      assertThat(c.getType()).isEqualTo("GpuHealthy");
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("GpuXid");
    });
    assertThat(n.getStatus().getConditions()).anySatisfy(c -> assertThat(c.getType()).isEqualTo("Ready"));
    await().atMost(Duration.ofSeconds(10)).until(() -> !client.v1().events().inNamespace("default").list().getItems()
        .isEmpty()); // written after the answer
    List<Event> events = client.v1().events().inNamespace("default").list().getItems();
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
      assertThat(e.getInvolvedObject().getName()).isEqualTo("n1");
      assertThat(e.getReason()).isEqualTo("GpuXidHardwareError");
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getSource().getComponent()).isEqualTo("gpu-remediator");
    });
  }

  @Test
  void releaseRemovesExactlyWhatWeAdded() {
    RemediationEngine engine = engine(shipped());
    Alert a = Alerts.xid("n1", "79");
    engine.decide(a);
    assertThat(engine.decide(Alerts.resolved(a)).reason()).isEqualTo(Reason.RESOLVED_ACTIONS_APPLIED);
    Node n = stored("n1");
    assertThat(n.getSpec().getTaints()).isEmpty();
    assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
    assertThat(n.getMetadata().getAnnotations().get(NodeKeys.LEDGER_ANNOTATION))
        .contains("\"claims\":{}", "\"episodes\":{}", "\"history\":[{\"fingerprint\":\"" + a.fingerprint() + "\"");
    assertThat(n.getStatus().getConditions()).anySatisfy(c -> {
      assertThat(c.getType()).isEqualTo("GpuHealthy");
      assertThat(c.getStatus()).isEqualTo("True");
    });
  }

  @Test
  void everyActionKindWritesThroughTheApi() throws IOException {
    Path f = dir.resolve("all.yaml");
    Files.writeString(f, String.join("\n",
        "playbooks:",
        "  - name: all",
        "    match: ['alertname=\"X\"']",
        "    actions:",
        "      - taint: {key: gpu-remediator.io/evict, effect: NoExecute}",
        "      - label: {key: gpu-remediator.io/fault, value: \"{{ labels.kind }}\"}",
        "      - annotate: {key: gpu-remediator.io/why, value: \"{{ annotations.summary }}\"}",
        "      - condition: {type: gpu-remediator.io/Checked, status: \"Unknown\", reason: Checking}",
        "    on_resolved:",
        "      - untaint: {key: gpu-remediator.io/evict, effect: NoExecute}",
        "      - unlabel: {key: gpu-remediator.io/fault}", ""));
    RemediationEngine engine = engine(PlaybookLoader.load(List.of(f)).set());
    Alert a = Alerts.alert(AlertStatus.FIRING, "X", "abc", Map.of("node", "n2", "kind", "ecc"));
    engine.decide(a);
    Node n = stored("n2");
    assertThat(n.getSpec().getTaints()).extracting(Taint::getEffect).containsExactly("NoExecute");
    assertThat(n.getMetadata().getLabels()).containsEntry("gpu-remediator.io/fault", "ecc");
    assertThat(n.getMetadata().getAnnotations()).containsEntry("gpu-remediator.io/why", "X on n2");
    assertThat(n.getStatus().getConditions()).anySatisfy(c -> assertThat(c.getType()).isEqualTo("gpu-remediator.io/Checked"));
    engine.decide(Alerts.resolved(a));
    n = stored("n2");
    assertThat(n.getSpec().getTaints()).isEmpty();
    assertThat(n.getMetadata().getLabels()).doesNotContainKey("gpu-remediator.io/fault");
    assertThat(n.getMetadata().getAnnotations()).containsEntry("gpu-remediator.io/why", "X on n2");
  }

  @Test
  void aConflictingWriteIsRetriedOnTheFreshNode() throws ClusterException {
    AtomicInteger calls = new AtomicInteger();
    String result = cluster.modifyNode("n1", fresh -> {
      if (calls.incrementAndGet() == 1) {
        // Someone else writes between our read and our write: our PUT must get 409 and re-read.
        client.nodes().withName("n1").edit(n -> new NodeBuilder(n).editMetadata().addToLabels("other", "writer").endMetadata().build());
      }
      Map<String, String> labels = new HashMap<>(fresh.labels());
      labels.put("gpu-remediator.io/mine", "yes");
      return new Cluster.Edited<>(new NodeInfo(fresh.name(), labels, fresh.annotations(), fresh.taints(),
          fresh.unschedulable(), fresh.conditions(), fresh.internalIps(), fresh.bootId(), fresh.resourceVersion(), fresh.ledger(),
          fresh.ledgerFault()), "attempt " + calls.get());
    });
    assertThat(result).isEqualTo("attempt 2");
    assertThat(stored("n1").getMetadata().getLabels()).containsEntry("other", "writer").containsEntry("gpu-remediator.io/mine", "yes");
  }

  @Test
  void fieldsWeDoNotModelSurviveOurWrites() {
    client.nodes().withName("n1").edit(n -> new NodeBuilder(n).editSpec()
        .addNewTaint().withKey("node.kubernetes.io/unreachable").withEffect("NoExecute").withTimeAdded("2026-11-22T09:30:00Z").endTaint()
        .withPodCIDR("10.244.1.0/24").endSpec().build());
    engine(shipped()).decide(Alerts.xid("n1", "79"));
    Node n = stored("n1");
    assertThat(n.getSpec().getPodCIDR()).isEqualTo("10.244.1.0/24");
    assertThat(n.getSpec().getTaints()).anySatisfy(t -> {
      assertThat(t.getKey()).isEqualTo("node.kubernetes.io/unreachable");
      assertThat(t.getTimeAdded()).isEqualTo("2026-11-22T09:30:00Z");
    });
    assertThat(n.getStatus().getAddresses()).hasSize(2);
  }

  @Test
  void resolvesInstanceLabelsAgainstInternalIps() {
    Alert a = Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "ip1",
        Map.of("instance", "10.0.0.2:9400", "xid", "48", "gpu", "0", "severity", "critical", "remediate", "true"));
    assertThat(engine(shipped()).decide(a).node()).isEqualTo("n2");
    assertThat(stored("n2").getSpec().getUnschedulable()).isTrue();
  }

  @Test
  void aCorruptLedgerIsReportedAndNotOverwritten() {
    client.nodes().withName("n1").edit(n -> new NodeBuilder(n).editMetadata()
        .addToAnnotations(NodeKeys.LEDGER_ANNOTATION, "{not json").endMetadata().build());
    await().atMost(Duration.ofSeconds(5)).until(() -> cluster.node("n1").orElseThrow().ledgerFault().isPresent());
    assertThat(engine(shipped()).decide(Alerts.xid("n1", "79")).reason()).isEqualTo(Reason.NODE_STATE_UNREADABLE);
    assertThat(stored("n1").getMetadata().getAnnotations()).containsEntry(NodeKeys.LEDGER_ANNOTATION, "{not json");
  }

  @Test
  void anUnreachableApiIsATransientFailure() {
    try (KubernetesClient dead = Nodes.unreachable()) {
      Fabric8Cluster unreachable = new Fabric8Cluster(dead, "test", Tokens.LEDGER_KEY.getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> unreachable.modifyNode("n1", n -> new Cluster.Edited<>(n, null)))
          .isInstanceOfSatisfying(ClusterException.class, e -> assertThat(e.isTransient()).isTrue());
    }
  }

  @Test
  void aVanishedNodeIsAPermanentFailure() {
    assertThatThrownBy(() -> cluster.modifyNode("gone", n -> new Cluster.Edited<>(n, null)))
        .isInstanceOfSatisfying(ClusterException.class, e -> assertThat(e.isTransient()).isFalse());
  }
}
