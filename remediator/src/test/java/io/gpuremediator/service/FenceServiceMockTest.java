package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.DraObjects;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole service, the shipped playbooks and its watches, against the emulated API server: a reset-class XID on a DRA
 * node fences that GPU (the node schedulable, the pod using it evicted through the Eviction API), and a human who
 * deletes our DeviceTaintRule ends the episode without a timer's look (the loop's interval is 10 minutes), with nothing
 * put back. That the watch of our rules alone tells the loop is Fabric8DevicesMockTest's and HeldObjectWatchesTest's.
 */
class FenceServiceMockTest {
  private static final String NODE = "gpu-node-1";
  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;

  @Test
  void aGpuIsFencedAndAHumanWhoDeletesOurRuleEndsTheEpisode() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    Nodes.createFleet(client, 3);
    client.nodes().withName(NODE).edit(n -> {
      n.getMetadata().getLabels().put("nvidia.com/gpu.deploy.dra-driver", "true");
      return n;
    });
    DraObjects.slice(client, NODE, 8);
    DraObjects.podHolding(client, "ml", "server-2", NODE, 2);
    Tokens.write(dir, "fence-test-token-0123456789");
    // The loop's interval is long: only the watches can tell the loop in time.
    Path config = ServiceConfig.writeShipped(dir,
        "safety: {max_unavailable: 50%, max_unavailable_gpus: 50%}\nloop: {interval: 10m}\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(),
        Optional.of("fence-test-token-0123456789"))) {
      Alert xid = Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "fd2", Map.of("node", NODE, "gpu", "2",
          "UUID", DraObjects.uuid(NODE, 2), "xid", "48", "source", "dcgm", "recommended_action", "reset_gpu",
          "severity", "critical", "remediate", "true"));
      assertThat(service.post(xid)).contains("gpu-dra-xid-reset", "actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> DraObjects.rules(client).size() == 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> server.evictionsGranted("ml", "server-2") == 1);
      assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).isNull();
      // The eviction comes first; the fence is recorded in the ledger write of the same look, just after it.
      await().atMost(Duration.ofSeconds(20)).until(() -> !fencedGpus(service).isEmpty());
      assertThat(fencedGpus(service).getJsonObject(0).getString("uuid")).isEqualTo(DraObjects.uuid(NODE, 2));
      JsonObject gpus = new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("limits").stream()
          .map(JsonObject.class::cast).filter(l -> l.getString("limit").equals("max_unavailable_gpus")).findFirst()
          .orElseThrow();
      assertThat(gpus.getInteger("used")).as("one GPU fenced of 3 nodes' 24").isEqualTo(1);
      assertThat(gpus.getInteger("allowed")).isEqualTo(12);
      assertThat(service.get("/metrics").body()).contains("remediator_limit_used{limit=\"max_unavailable_gpus\",} 1.0");

      client.genericKubernetesResources(DraObjects.RULES).withName("gpu-remediator." + NODE + ".gpu-2").delete();
      await().atMost(Duration.ofSeconds(20)).until(() -> service.get("/api/v1/decisions?limit=1000").body()
          .contains("\"reason\":\"human_override\""));
      assertThat(service.get("/api/v1/decisions?limit=1000").body()).contains("DeviceTaintRule gpu-remediator." + NODE
          + ".gpu-2 fencing GPU " + DraObjects.uuid(NODE, 2) + " was deleted");
      assertThat(DraObjects.rules(client)).as("nothing is put back").isEmpty();
    }
  }

  private static JsonArray fencedGpus(RunningService service) throws Exception {
    return new JsonObject(service.get("/api/v1/nodes").body()).getJsonArray("nodes").stream()
        .map(JsonObject.class::cast).filter(n -> n.getString("node").equals(NODE)).findFirst().orElseThrow()
        .getJsonArray("fenced_gpus");
  }
}
