package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clique budget on the GPU Operator's DRA stack, which runs no GPU Feature Discovery (so no node carries
 * {@code nvidia.com/gpu.clique}), through the whole service: each tray's clique is the one NVIDIA's DRA driver wrote
 * into its ComputeDomainClique objects (the CRD recorded in tests/real/dra), so the second tray of a clique is refused
 * as with GFD's label; a tray no ComputeDomain uses shows no clique, and that is said plainly: in
 * {@code GET /api/v1/safety}'s warnings (the page shows them) and as {@code remediator_domain_label_missing}.
 */
class DraCliqueDomainMockTest {
  private static final String TOKEN = "clique-test-token-0123456789";
  private static final String CLIQUE = "9277d399-0674-44a9-b64e-d85bb19ce2b0.32766";
  private static final ResourceDefinitionContext CLIQUES = new ResourceDefinitionContext.Builder()
      .withGroup("resource.nvidia.com").withVersion("v1beta1").withKind("ComputeDomainClique")
      .withPlural("computedomaincliques").withNamespaced(true).build();

  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;

  private static void daemons(KubernetesClient client, String name, String clique, String... nodes) {
    StringBuilder d = new StringBuilder();
    for (int i = 0; i < nodes.length; i++) {
      d.append(i == 0 ? "" : ",").append("{\"nodeName\":\"").append(nodes[i]).append("\",\"ipAddress\":\"10.2.0.")
          .append(i + 1).append("\",\"cliqueID\":\"").append(clique).append("\",\"index\":").append(i)
          .append(",\"status\":\"Ready\"}");
    }
    client.genericKubernetesResources(CLIQUES).inNamespace("nvidia-dra-driver-gpu").resource(Serialization.unmarshal(
        "{\"apiVersion\":\"resource.nvidia.com/v1beta1\",\"kind\":\"ComputeDomainClique\",\"metadata\":{\"name\":\""
        + name + "\",\"namespace\":\"nvidia-dra-driver-gpu\"},\"daemons\":[" + d + "]}", GenericKubernetesResource.class))
        .create();
  }

  @Test
  void theDriversPublishedCliqueIsTheDomainAndATrayWithoutOneIsSaidPlainly() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    for (String n : new String[] {"gb200-a-0", "gb200-a-1", "gb200-b-0", "gb200-idle"}) {
      client.nodes().resource(Nodes.gpu(n, "10.1.0." + n.length())).create();
    }
    daemons(client, "7c1e0a52-5a3e-4c1b-9d0e-0f7a2b9c1d11." + CLIQUE.replaceAll(".*\\.", ""), CLIQUE, "gb200-a-0",
        "gb200-a-1");
    daemons(client, "0d4b7e19-8f2c-4a6d-b3e5-61c9f8a2d7e0.1", "9277d399-0674-44a9-b64e-d85bb19ce2b0.1", "gb200-b-0");
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir,
        "safety:\n  max_unavailable: 100%\n  breaker: {nodes: 50, window: 10m}\n  domains:\n"
        + "    - {label: nvidia.com/gpu.clique, max_unavailable: 1}\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      await().atMost(Duration.ofSeconds(20)).until(() -> service.get("/metrics").body()
          .contains("remediator_domain_label_missing{label=\"nvidia.com/gpu.clique\",} 1.0"));
      assertThat(new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("warnings").encode()).contains(
          "safety.domains label nvidia.com/gpu.clique: 1 of the 4 selected nodes show no value for it (no label, and no"
          + " NVLink clique published by NVIDIA's DRA driver");

      assertThat(service.post(Alerts.xid("gb200-a-0", "79", "reboot"))).contains("actions_applied");
      String refused = service.post(Alerts.xid("gb200-a-1", "79", "reboot"));
      assertThat(refused).contains("\"reason\":\"domain_budget_exhausted\"");
      assertThat(service.get("/api/v1/decisions?limit=20").body()).contains("failure domain nvidia.com/gpu.clique="
          + CLIQUE + ": 1 of its 2 selected nodes are unavailable");
      assertThat(service.post(Alerts.xid("gb200-b-0", "79", "reboot"))).as("another clique is its own domain")
          .contains("actions_applied");
      assertThat(client.nodes().withName("gb200-a-0").get().getMetadata().getLabels())
          .as("nothing is written on the Node: the clique is the driver's").doesNotContainKey("nvidia.com/gpu.clique");
    }
  }
}
