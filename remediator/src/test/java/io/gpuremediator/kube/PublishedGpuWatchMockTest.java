package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A cluster without DRA (Kubernetes before 1.34: no {@code resource.k8s.io/v1}) answers the list of ResourceSlices 404:
 * the watch stops there, every count is unknown (the nodes' own counts are read instead), and nothing is retried.
 */
@EnableKubernetesMockClient
class PublishedGpuWatchMockTest {
  private static final ResourceDefinitionContext SLICES = new ResourceDefinitionContext.Builder()
      .withGroup("resource.k8s.io").withVersion("v1").withKind("ResourceSlice").withPlural("resourceslices")
      .withNamespaced(false).build();
  KubernetesMockServer server;
  KubernetesClient client;

  @Test
  void aClusterThatServesNoResourceSlicesStopsTheWatchAndCountsNothing() {
    PublishedGpuWatch watch = new PublishedGpuWatch(client, SLICES, "gpu.nvidia.com");
    watch.start();
    assertThat(watch.on("gpu-node-0")).isEmpty();
    // The informer stops on its own thread once the 404 is handled: a deadline, not the instant start() returns.
    await().atMost(Duration.ofSeconds(10)).until(() -> !watch.watching());
    assertThat(watch.on("gpu-node-0")).as("not retried: there is no such API").isEmpty();
    watch.close();
  }
}
