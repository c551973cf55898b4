package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code accept_alerts} against the emulated API server: behind a shared Alertmanager, another cluster's alert for a
 * node name this cluster also has is decided {@code ignored/foreign_alert} and touches nothing (the API server's request
 * log shows no request of the service after it but its informers' watches), and neither does an alert without the cluster's label; this cluster's
 * own alert for the same node is acted on. The cluster's label is an OpenTelemetry-style dotted name, as Alertmanager 0.28
 * and later pass on ({@code "k8s.cluster.name"="prod-a"}, the quoted form of the matcher).
 */
class AcceptAlertsMockTest {
  private static final String TOKEN = "accept-test-token-0123456789";

  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;

  private static Alert inCluster(Alert a, String cluster) {
    Map<String, String> labels = new HashMap<>(a.labels());
    if (cluster == null) {
      labels.remove("k8s.cluster.name");
    } else {
      labels.put("k8s.cluster.name", cluster);
    }
    return Alerts.withLabels(a, labels);
  }

  @Test
  void anotherClustersAlertForANodeOfTheSameNameTouchesNothing() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    Nodes.createFleet(client, 4);
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir,
        "safety: {max_unavailable: 2}\naccept_alerts: ['\"k8s.cluster.name\"=\"prod-a\"']\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      int before = server.requestLog().size();
      String answer = service.post(inCluster(Alerts.xid("gpu-node-1", "79", "reboot"), "prod-b"),
          inCluster(Alerts.xid("gpu-node-2", "79", "reboot"), null));
      assertThat(answer).contains("\"outcome\":\"ignored\"").contains("\"reason\":\"foreign_alert\"")
          .doesNotContain("applied");
      // A watch the service's informers reopen (the API server ends each after its timeout) is not made for the alert.
      List<String> after = server.requestLog().subList(before, server.requestLog().size()).stream()
          .filter(request -> !request.contains("watch=true")).toList();
      assertThat(after).as("requests the service made for the foreign alerts").isEmpty();
      assertThat(client.nodes().withName("gpu-node-1").get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
      assertThat(service.get("/api/v1/decisions?limit=5").body())
          .contains("the alert does not satisfy accept_alerts (\\\"k8s.cluster.name\\\"=\\\"prod-a\\\")");

      assertThat(service.post(inCluster(Alerts.xid("gpu-node-1", "79", "reboot"), "prod-a"))).contains("actions_applied");
      assertThat(client.nodes().withName("gpu-node-1").get().getSpec().getUnschedulable()).isTrue();
    }
  }
}
