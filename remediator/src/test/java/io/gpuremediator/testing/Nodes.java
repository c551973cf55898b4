package io.gpuremediator.testing;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.simapi.EmulatedApiServer;
import java.time.Duration;
import java.util.Map;

/** Kubernetes Node objects as a GPU cluster has them, and clients for tests. */
public final class Nodes {
  private Nodes() {}

  /** A Ready GPU node with an InternalIP. */
  public static Node gpu(String name, String ip) {
    Node n = node(name, ip, Map.of("nvidia.com/gpu.present", "true", "kubernetes.io/hostname", name));
    n.getStatus().setCapacity(Map.of("nvidia.com/gpu", new Quantity("8"))); // the device plugin's, as a GPU node shows it
    return n;
  }

  /** A Ready node with these labels and an InternalIP. */
  public static Node node(String name, String ip, Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata().withName(name).withLabels(labels).endMetadata()
        .withNewSpec().endSpec()
        .withNewStatus()
        .addNewAddress().withType("InternalIP").withAddress(ip).endAddress()
        .addNewAddress().withType("Hostname").withAddress(name).endAddress()
        .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
        .withLastTransitionTime("2026-11-22T09:00:00Z").withLastHeartbeatTime("2026-11-22T09:59:50Z").endCondition()
        .withNewNodeInfo().withBootID(name + "-boot-1").endNodeInfo()
        .endStatus()
        .build();
  }

  /**
   * The kubelet after a reboot, as the API shows it: the node's bootID is {@code bootId}, and it is Ready or not; a
   * write that meets the service's own (409) is made again on the node read fresh, as the kubelet's is.
   */
  public static void booted(KubernetesClient client, String name, String bootId, boolean ready) {
    await().atMost(Duration.ofSeconds(20)).ignoreExceptionsMatching(Nodes::conflict).until(() -> {
      client.nodes().withName(name).editStatus(n -> {
        n.getStatus().getNodeInfo().setBootID(bootId);
        n.getStatus().getConditions().stream().filter(c -> c.getType().equals("Ready"))
            .forEach(c -> c.setStatus(ready ? "True" : "Unknown"));
        return n;
      });
      return true;
    });
  }

  private static boolean conflict(Throwable t) {
    return t instanceof KubernetesClientException e && e.getCode() == 409;
  }

  /** Creates GPU nodes gpu-node-0 .. gpu-node-(count-1), at 10.0.0.1 on, and one CPU node, cpu-node-1 at 10.0.1.1. */
  public static void createFleet(KubernetesClient client, int count) {
    for (int i = 0; i < count; i++) {
      client.nodes().resource(gpu("gpu-node-" + i, "10.0.0." + (i + 1))).create();
    }
    client.nodes().resource(node("cpu-node-1", "10.0.1.1", Map.of())).create();
  }

  /** A running pod on a node (its own terminationGracePeriodSeconds 600, above the drains' caps). */
  public static void runningPod(KubernetesClient client, String namespace, String name, String node, Map<String, String> labels) {
    client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata()
        .withName(name).withNamespace(namespace).withLabels(labels).endMetadata().withNewSpec().withNodeName(node)
        .withTerminationGracePeriodSeconds(600L).addNewContainer().withName("c").withImage("img").endContainer().endSpec()
        .withNewStatus().withPhase("Running").endStatus().build()).create();
  }

  /** A training pod, ml-training/trainer-0 (app=llm), on the node, under budget ml-training/llm-pdb that allows nothing yet. */
  public static void trainerHeldByBudget(KubernetesClient client, EmulatedApiServer server, String node) {
    runningPod(client, "ml-training", "trainer-0", node, Map.of("app", "llm"));
    server.budget("ml-training", "llm-pdb", "app", "llm", 0);
  }

  /** A client like the mock's, but without the client's own retries (our code decides what to retry). */
  public static KubernetesClient noRetry(KubernetesClient mockClient) {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder(mockClient.getConfiguration())
        .withRequestRetryBackoffLimit(0).withRequestTimeout(20_000).build()).build();
  }

  /** A client to a port nothing listens on. */
  public static KubernetesClient unreachable() {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:1")
        .withRequestRetryBackoffLimit(0).withConnectionTimeout(500).withRequestTimeout(1000).build()).build();
  }
}
