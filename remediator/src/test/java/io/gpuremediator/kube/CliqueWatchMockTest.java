package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Tokens;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A DRA node's NVLink clique, where GPU Feature Discovery sets no label: read from the ComputeDomainClique objects
 * NVIDIA's DRA driver writes (the CRD and the type recorded in tests/real/dra), into the node's cached info, as the
 * {@code nvidia.com/gpu.clique} value a domain limit reads; a node's own label wins; a node no ComputeDomain uses has
 * none. A cluster without the CRD stops the watch at its 404.
 */
class CliqueWatchMockTest {
  private static final String CLIQUE = "9277d399-0674-44a9-b64e-d85bb19ce2b0.32766";
  private final EmulatedApiServer server = EmulatedApiServer.start();
  private final KubernetesClient client = server.client();
  private Fabric8Cluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
    client.close();
    server.close();
  }

  private void node(String name, Map<String, String> labels) {
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
  }

  /** A ComputeDomainClique as the driver writes it: named {@code <computeDomainUID>.<cliqueID>}, one daemon a node. */
  private void clique(String name, String clique, String... nodes) {
    StringBuilder daemons = new StringBuilder();
    for (int i = 0; i < nodes.length; i++) {
      daemons.append(i == 0 ? "" : ",").append("{\"nodeName\":\"").append(nodes[i]).append("\",\"ipAddress\":\"10.0.0.")
          .append(i + 1).append("\",\"cliqueID\":\"").append(clique).append("\",\"index\":").append(i)
          .append(",\"status\":\"Ready\"}");
    }
    GenericKubernetesResource o = Serialization.unmarshal("{\"apiVersion\":\"resource.nvidia.com/v1beta1\",\"kind\":"
        + "\"ComputeDomainClique\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"nvidia-dra-driver-gpu\"},"
        + "\"daemons\":[" + daemons + "]}", GenericKubernetesResource.class);
    client.genericKubernetesResources(CliqueWatch.CLIQUES).inNamespace("nvidia-dra-driver-gpu").resource(o).createOr(
        c -> c.update());
  }

  private Optional<String> domainOf(String node) {
    return cluster.node(node).flatMap(n -> n.domainValue(NodeInfo.CLIQUE_LABEL));
  }

  @Test
  void theRecordedCrdIsTheOneTheWatchReads() throws IOException {
    String crd = Files.readString(Path.of("../tests/real/dra/nvidia-dra-driver-crd-computedomaincliques.yaml"));
    assertThat(crd).contains("group: " + CliqueWatch.CLIQUES.getGroup(), "plural: " + CliqueWatch.CLIQUES.getPlural(),
        "kind: " + CliqueWatch.CLIQUES.getKind(), "scope: Namespaced", "- name: " + CliqueWatch.CLIQUES.getVersion());
    String type = Files.readString(Path.of("../tests/real/dra/nvidia-dra-driver-computedomainclique.go.txt"));
    assertThat(type).contains("json:\"daemons,omitempty\"", "json:\"nodeName\"", "json:\"cliqueID\"");
    assertThat(Files.readString(Path.of("../tests/real/dra/nvidia-dra-driver-cliqueid.go.txt")))
        .as("the driver's clique is GFD's label value: <clusterUUID>.<cliqueId>")
        .contains("return fmt.Sprintf(\"%s.%s\", clusterUUID, cliqueID), nil");
  }

  @Test
  void aDraNodesCliqueIsWhatTheDriverPublishesAndALabelWins() {
    node("gb200-tray-1", Map.of());
    node("gb200-tray-2", Map.of(NodeInfo.CLIQUE_LABEL, "from-gfd.1"));
    node("gb200-tray-3", Map.of());
    cluster = new Fabric8Cluster(client, "test", Tokens.LEDGER_KEY.getBytes(StandardCharsets.UTF_8));
    cluster.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> cluster.nodes().size() == 3);
    assertThat(domainOf("gb200-tray-1")).isEmpty();

    clique("3f1b5a2e-cd01." + CLIQUE.replaceAll(".*\\.", ""), CLIQUE, "gb200-tray-1", "gb200-tray-2");
    await().atMost(Duration.ofSeconds(20)).until(() -> domainOf("gb200-tray-1").isPresent());
    assertThat(domainOf("gb200-tray-1")).contains(CLIQUE);
    assertThat(domainOf("gb200-tray-2")).as("GFD's label, where it is set, is the node's").contains("from-gfd.1");
    assertThat(domainOf("gb200-tray-3")).as("no ComputeDomain uses it: unknown").isEmpty();
    assertThat(cluster.node("gb200-tray-1").orElseThrow().labels()).as("the Node's own labels are left as they are")
        .doesNotContainKey(NodeInfo.CLIQUE_LABEL);
    long before = cluster.generation();

    client.genericKubernetesResources(CliqueWatch.CLIQUES).inNamespace("nvidia-dra-driver-gpu").delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> domainOf("gb200-tray-1").isEmpty());
    assertThat(cluster.generation()).as("the fleet's counts see the node changed").isGreaterThan(before);
  }

  @Test
  void aClusterWithoutTheDriversCrdStopsTheWatch() {
    KubernetesMockServer plain = new KubernetesMockServer();
    plain.init();
    try (KubernetesClient c = plain.createClient()) {
      CliqueWatch watch = new CliqueWatch(c, n -> { });
      watch.start();
      assertThat(watch.of("gb200-tray-1")).isEmpty();
      await().atMost(Duration.ofSeconds(10)).until(() -> !watch.running());
      watch.close();
    } finally {
      plain.destroy();
    }
  }
}
