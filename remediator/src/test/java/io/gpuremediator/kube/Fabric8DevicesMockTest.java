package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.device.Device;
import io.gpuremediator.device.DeviceRef;
import io.gpuremediator.device.DeviceTaint;
import io.gpuremediator.device.Devices;
import io.gpuremediator.device.FenceRule;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.DraObjects;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The DRA adapter over HTTP against the emulated API server, in the shapes NVIDIA's DRA driver and Kubernetes publish
 * (tests/real/dra): a node's GPUs from its slices, a rule written once however often it is asked, the pods a device's
 * claims are reserved for, our rules by label, and a deletion told by the watch of our rules.
 */
class Fabric8DevicesMockTest {
  private final EmulatedApiServer server = EmulatedApiServer.start();
  private final KubernetesClient client = server.client();
  private final Devices devices = KubeApi.of(client).devices();

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private static FenceRule rule(String node, int gpu) {
    return new FenceRule("gpu-remediator." + node + ".gpu-" + gpu, new DeviceRef("gpu.nvidia.com", node, "gpu-" + gpu),
        new DeviceTaint("gpu-remediator.io/unhealthy", "GpuXidHardwareError", "NoExecute"),
        Map.of("gpu-remediator.io/managed", "true", "gpu-remediator.io/episode", "0123456789abcdef"));
  }

  @Test
  void aNodesGpusAreReadFromItsOwnSlicesOnly() throws Exception {
    DraObjects.slice(client, "gpu-node-0", 8);
    DraObjects.slice(client, "gpu-node-1", 8);
    List<Device> gpus = devices.onNode("gpu-node-0", "gpu.nvidia.com");
    assertThat(gpus).hasSize(8).allSatisfy(d -> assertThat(d.ref().pool()).isEqualTo("gpu-node-0"));
    assertThat(gpus.get(3).uuid()).contains(DraObjects.uuid("gpu-node-0", 3));
    assertThat(gpus.get(3).is(DraObjects.uuid("gpu-node-0", 3))).isTrue();
    assertThat(devices.onNode("gpu-node-2", "gpu.nvidia.com")).as("a device-plugin node publishes nothing").isEmpty();
    assertThat(devices.onNode("gpu-node-0", "gpu.example.com")).isEmpty();
  }

  @Test
  void aRuleIsWrittenOnceReadBackFoundByItsLabelAndDeletedOnce() throws Exception {
    devices.fence(rule("gpu-node-0", 3));
    devices.fence(rule("gpu-node-0", 3)); // a restart asks again: found, not doubled
    assertThat(DraObjects.rules(client)).hasSize(1);
    assertThat(devices.rule("gpu-remediator.gpu-node-0.gpu-3")).contains(rule("gpu-node-0", 3));
    assertThat(devices.rulesLabelled("gpu-remediator.io/episode", "0123456789abcdef"))
        .containsExactly("gpu-remediator.gpu-node-0.gpu-3");
    devices.unfence("gpu-remediator.gpu-node-0.gpu-3");
    devices.unfence("gpu-remediator.gpu-node-0.gpu-3"); // gone already: fine
    assertThat(devices.rule("gpu-remediator.gpu-node-0.gpu-3")).isEmpty();
  }

  @Test
  void theHoldersOfADeviceAreThePodsOnTheNodeWhoseClaimsAreReservedForThem() throws Exception {
    DraObjects.slice(client, "gpu-node-0", 8);
    DraObjects.podHolding(client, "ml", "trainer-3", "gpu-node-0", 3);
    DraObjects.podHolding(client, "ml", "trainer-4", "gpu-node-0", 4);
    DraObjects.podHolding(client, "serving", "server-1", "gpu-node-1", 1);
    DeviceRef gpu3 = new DeviceRef("gpu.nvidia.com", "gpu-node-0", "gpu-3");
    int before = server.requestLog().size();
    assertThat(devices.holders("gpu-node-0", gpu3)).containsExactly("ml/trainer-3");
    assertThat(server.requestLog().subList(before, server.requestLog().size())).as("the node's pods and their claims,"
        + " never every claim").noneMatch(r -> r.matches("GET /apis/resource\\.k8s\\.io/v1/resourceclaims(\\?.*)?"))
        .anyMatch(r -> r.startsWith("GET /api/v1/pods?fieldSelector=spec.nodeName"));
    client.pods().inNamespace("ml").withName("trainer-3").delete(); // it finished: the claim controller unreserves it
    assertThat(devices.holders("gpu-node-0", gpu3)).isEmpty();
    assertThat(devices.holders("gpu-node-0", new DeviceRef("gpu.nvidia.com", "gpu-node-0", "gpu-4")))
        .containsExactly("ml/trainer-4");
  }

  @Test
  void theWatchOfOurRulesTellsEachDeletion() throws Exception {
    List<String> deleted = new CopyOnWriteArrayList<>();
    devices.fence(rule("gpu-node-0", 3));
    try (AutoCloseable watch = devices.watchRules(deleted::add)) {
      // The watch is up once it tells a deletion: a probe rule is written and deleted until it does.
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        devices.fence(rule("gpu-node-9", 0));
        devices.unfence("gpu-remediator.gpu-node-9.gpu-0");
        return deleted.contains("gpu-remediator.gpu-node-9.gpu-0");
      });
      devices.fence(rule("gpu-node-1", 5));
      client.genericKubernetesResources(DraObjects.RULES).withName("gpu-remediator.gpu-node-0.gpu-3").delete();
      await().atMost(Duration.ofSeconds(20)).until(() -> deleted.contains("gpu-remediator.gpu-node-0.gpu-3"));
      assertThat(deleted).as("deletions only; the probe's may come more than once").contains(
          "gpu-remediator.gpu-node-0.gpu-3").doesNotContain("gpu-remediator.gpu-node-1.gpu-5");
    }
  }
}
