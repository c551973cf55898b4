package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's two attacks on the ledger the service keeps on the Node, against the whole service with the shipped
 * playbooks: three alerts with long annotations grew it to 396 KB and 300 alerts on one node to 127 KB; past the API
 * server's 256 KiB of annotations (simapi answers its 422) the node could never be written, so never quarantined,
 * again. An episode now keeps its annotations cut short, and past {@code ledger.max_episodes_per_node} a new alert is
 * {@code ledger_full}: the ledger stays small and the node stays writable.
 */
class LedgerBoundMockTest {
  private static final String NODE = "gpu-node-1";
  private static final String TOKEN = "ledger-bound-test-token";
  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;
  @AutoClose private KubernetesClient client;

  private static Alert xidOnGpu(int gpu, Map<String, String> annotations) {
    Alert a = Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "fb" + Integer.toHexString(1000 + gpu), Map.of("node",
        NODE, "xid", "79", "gpu", Integer.toString(gpu), "severity", "critical", "remediate", "true"));
    return new Alert(a.status(), a.labels(), annotations, a.startsAt(), a.endsAt(), a.generatorUrl(), a.fingerprint());
  }

  private int ledgerBytes() {
    String ledger = client.nodes().withName(NODE).get().getMetadata().getAnnotations().get("gpu-remediator.io/state");
    return ledger == null ? 0 : ledger.getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void longAnnotationsAndManyAlertsLeaveTheLedgerSmallAndTheNodeWritable() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir,
        "safety: {max_unavailable: 100%, rate_limit: 1000/1h}\nledger: {max_episodes_per_node: 8}\n");
    try (RunningService s = new RunningService(config, server, Alerts.liveClock(), TOKEN)) {
      String text = "x".repeat(130_000);
      for (int gpu = 0; gpu < 3; gpu++) {
        assertThat(s.post(xidOnGpu(gpu, Map.of("summary", "XID 79", "description", text))))
            .as("alert %d", gpu).contains("actions_applied");
      }
      assertThat(ledgerBytes()).as("three alerts of 130 KB annotations").isLessThan(32 * 1024);

      Alert[] many = IntStream.range(3, 40).mapToObj(g -> xidOnGpu(g, Map.of("summary", "XID 79 " + "y".repeat(900))))
          .toArray(Alert[]::new);
      String answer = s.post(many);
      assertThat(answer).contains("\"reason\":\"ledger_full\"");
      assertThat(s.decisions()).contains("the node's ledger already holds 8 episodes, its most");
      assertThat(ledgerBytes()).as("past its most episodes").isLessThan(64 * 1024);
      assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).as("quarantined").isTrue();
      assertThat(s.post(Alerts.resolved(xidOnGpu(0, Map.of())))).as("the node is still written")
          .doesNotContain("kube_rejected").doesNotContain("kube_unavailable");
      assertThat(s.get("/metrics").body()).contains("remediator_decisions_total{outcome=\"suppressed\",reason=\"ledger_full\",}");
    }
  }
}
