package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

/** The fabric8 mock API server in CRUD mode on 127.0.0.1, seeded with Ready GPU nodes. */
final class MockApiServer implements AutoCloseable {
  private final KubernetesMockServer server =
      new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
  private final KubernetesClient client;

  /** The mock logs every request through java.util.logging; benchmarks print only their figures. */
  private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static void quiet() {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  MockApiServer(int nodes) throws IOException {
    server.init(InetAddress.getByName("127.0.0.1"), 0);
    client = server.createClient();
    for (int i = 0; i < nodes; i++) {
      client.nodes().resource(new NodeBuilder()
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
    return client;
  }

  /** Writes a kubeconfig pointing at this server, as a real cluster's would. */
  Path writeKubeconfig(Path file) throws IOException {
    Files.writeString(file, String.join("\n",
        "apiVersion: v1", "kind: Config", "current-context: mock",
        "clusters: [{name: mock, cluster: {server: '" + client.getMasterUrl() + "'}}]",
        "contexts: [{name: mock, context: {cluster: mock, user: mock}}]",
        "users: [{name: mock, user: {token: mock}}]", ""));
    return file;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
