package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simcluster.SimCluster;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The simulated cluster (fabric8 mock API server in CRUD mode on 127.0.0.1) in this JVM, seeded with
 * minimal Ready GPU nodes: the benchmarks measure the service, so its nodes stay as small as they were.
 */
final class MockApiServer implements AutoCloseable {
  private final SimCluster cluster;

  static void quiet() {
    SimCluster.quiet();
  }

  MockApiServer(int nodes) throws IOException {
    cluster = SimCluster.start("127.0.0.1", 0);
    for (int i = 0; i < nodes; i++) {
      cluster.client().nodes().resource(new NodeBuilder()
          .withNewMetadata().withName(nodeName(i)).addToLabels("nvidia.com/gpu.present", "true").endMetadata()
          .withNewSpec().endSpec()
          .withNewStatus().addNewAddress().withType("InternalIP").withAddress("10.1." + (i / 250) + "." + (i % 250 + 1)).endAddress()
          .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
          .build()).create();
    }
  }

  static String nodeName(int i) {
    return "gpu-node-" + i;
  }

  KubernetesClient client() {
    return cluster.client();
  }

  /** Writes a kubeconfig pointing at this server, as a real cluster's would. */
  Path writeKubeconfig(Path file) throws IOException {
    return cluster.writeKubeconfig(file);
  }

  @Override
  public void close() {
    cluster.close();
  }
}
