package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.workload.Workloads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pod watch a drain waits on, against the emulated API server over HTTP: it hears the node's own pods leave. */
class PodWatchMockTest {
  private final EmulatedApiServer server = EmulatedApiServer.start();
  private final KubernetesClient client = server.client();

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void hearsAPodOfTheNodeGoAndNotThePodsOfOtherNodes() throws Exception {
    Nodes.runningPod(client, "ml", "on-a", "node-a", Map.of());
    Nodes.runningPod(client, "ml", "on-b", "node-b", Map.of());
    Workloads workloads = KubeApi.of(client).workloads();
    AtomicInteger heard = new AtomicInteger();
    try (AutoCloseable watch = workloads.watchPodsOn("node-a", heard::incrementAndGet)) {
      client.pods().inNamespace("ml").withName("on-b").withGracePeriod(0).delete();
      client.pods().inNamespace("ml").withName("on-a").withGracePeriod(0).delete();
      await().atMost(Duration.ofSeconds(10)).until(() -> heard.get() > 0);
      assertThat(heard.get()).isEqualTo(1);
    }
  }
}
