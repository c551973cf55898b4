package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.OnCallReceiver;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code safety.page} through the whole service: a node the loop gives up on (a replacement through a provider whose
 * RBAC is not deployed: needs_human) and the storm breaker opening are each sent to the paged receiver (a local
 * Slack-compatible endpoint), though no playbook step notifies it.
 */
class SafetyPageMockTest {
  private static final String TOKEN = "page-test-token-0123456789";
  private static final String PLAYBOOKS = """
      playbooks:
        - name: replace-now
          match: ['alertname="GpuRowRemapFailure"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: rma, effect: NoSchedule}
            - replace: {provider: karpenter}
      """;

  @TempDir Path dir;
  /** Closed after the test, as the server. */
  @AutoClose private OnCallReceiver oncall;
  @AutoClose private EmulatedApiServer server;

  @Test
  void aNodeNeedingAHumanAndTheBreakerOpeningPageTheOnCall() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    Nodes.createFleet(client, 4);
    oncall = new OnCallReceiver(dir.resolve("oncall-url"));
    List<String> paged = oncall.received();
    Tokens.write(dir, TOKEN);
    Files.writeString(dir.resolve("playbooks.yaml"), PLAYBOOKS);
    Path config = dir.resolve("remediator.yaml");
    ServiceConfig.write(config, "playbooks.yaml", "leader_election: {enabled: false}\nloop: {interval: 200ms, retry_delay: 200ms}\n"
        + "notify: {receivers: [{name: pager, type: slack, url_file: oncall-url}]}\n"
        + "safety: {max_unavailable: 100%, breaker: {nodes: 2, window: 10m}, page: [pager]}\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      assertThat(service.post(rma("gpu-node-0"))).contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> paged.stream().anyMatch(m -> m.startsWith("gpu-node-0 needs a human"
          + " (replace-now): cannot replace gpu-node-0 through karpenter: cloud.karpenter is not in the service config")));

      assertThat(service.post(rma("gpu-node-1"), rma("gpu-node-2"), rma("gpu-node-3"))).contains("breaker_open");
      await().atMost(Duration.ofSeconds(20)).until(() -> paged.stream().anyMatch(m -> m.startsWith("storm breaker OPEN: 4"
          + " nodes started firing remediation alerts within 10m")));
      assertThat(paged).as("one page each").hasSize(2);
    }
  }

  private static Alert rma(String node) {
    return Alerts.alert(AlertStatus.FIRING, "GpuRowRemapFailure", "fr" + Integer.toHexString(node.hashCode()),
        Map.of("node", node, "severity", "critical", "remediate", "true", "gpu", "1"));
  }
}
