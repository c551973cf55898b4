package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simapi.EmulatedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ResourceSlice watch the GPU counts read is stopped by whoever started it, against the emulated API server: a
 * stopped service (its loop) keeps no watch that goes on retrying against an API server long gone, while another loop
 * on the same client still holds it; closing the client's adapter stops every watch it ran.
 */
class PublishedWatchOwnersMockTest {
  private static final String DRIVER = "gpu.nvidia.com";
  private final EmulatedApiServer server = EmulatedApiServer.start();
  private final KubernetesClient client = server.client();
  private final KubeApi kube = KubeApi.of(client);
  private final Fabric8Devices devices = (Fabric8Devices) kube.devices();

  @AfterEach
  void stop() {
    kube.close();
    server.close();
  }

  @Test
  void theWatchStopsWhenItsLastOwnerClosesAndNotBefore() throws Exception {
    AutoCloseable first = devices.watchPublished(DRIVER);
    AutoCloseable second = devices.watchPublished(DRIVER);
    await().atMost(Duration.ofSeconds(10)).until(() -> devices.watching(DRIVER));

    first.close();
    first.close(); // twice is once
    assertThat(devices.watching(DRIVER)).as("the second owner still reads it").isTrue();
    second.close();
    assertThat(devices.watching(DRIVER)).isFalse();

    AutoCloseable again = devices.watchPublished(DRIVER);
    assertThat(devices.watching(DRIVER)).as("a loop started after reads a new watch").isTrue();
    again.close();
  }

  @Test
  void closingTheAdapterStopsAWatchNoOwnerStarted() {
    assertThat(devices.publishedGpus("gpu-node-0", DRIVER)).isEmpty(); // a read alone starts it
    await().atMost(Duration.ofSeconds(10)).until(() -> devices.watching(DRIVER));
    kube.close();
    assertThat(devices.watching(DRIVER)).isFalse();
  }
}
