package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
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
    assertThat(watch.watching()).as("not retried: there is no such API").isFalse();
    watch.close();
  }
}
