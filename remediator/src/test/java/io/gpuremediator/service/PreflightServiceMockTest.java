package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pre-flight gate from the service config to the API: a node that registers with the taint while the service runs
 * is in stage {@code preflight} in {@code GET /api/v1/nodes} (which the status page draws) as soon as the watch shows it;
 * its Job passing removes the taint, and the decisions say {@code preflight_started} and {@code preflight_passed}.
 */
class PreflightServiceMockTest {
  private static final String TOKEN = "preflight-test-token-0123456789";

  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;

  @Test
  void aRegisteringNodeIsInStagePreflightUntilItsJobPasses() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient client = server.client();
    Nodes.createFleet(client, 4);
    Tokens.write(dir, TOKEN);
    Path config = ServiceConfig.writeShipped(dir,
        // a long interval: the gate opens on the watch's word, not on the timer
        "loop: {interval: 10m, retry_delay: 1s}\n"
        + "preflight:\n  diagnose: {image: dcgm, command: [dcgmi, diag, -r, \"2\"], timeout: 10m}\n"
        + "  max_concurrent: 2\n  on_fail: gpu-needs-human\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      Node n = Nodes.gpu("gpu-new-0", "10.0.2.1");
      n.getSpec().setTaints(List.of(new TaintBuilder().withKey("gpu-remediator.io/preflight").withEffect("NoSchedule")
          .build()));
      client.nodes().resource(n).create();
      await().atMost(Duration.ofSeconds(20)).until(() -> service.get("/api/v1/nodes").body()
          .matches("(?s).*\"node\":\"gpu-new-0\".*\"stage\":\"preflight\".*"));
      await().atMost(Duration.ofSeconds(20)).until(() -> !client.batch().v1().jobs().inNamespace("gpu-remediator")
          .withLabel("gpu-remediator.io/step", "preflight").list().getItems().isEmpty());
      Job job = client.batch().v1().jobs().inNamespace("gpu-remediator").withLabel("gpu-remediator.io/step", "preflight")
          .list().getItems().get(0);
      job.setStatus(new JobStatusBuilder().addNewCondition().withType("Complete").withStatus("True").endCondition().build());
      client.batch().v1().jobs().inNamespace("gpu-remediator").resource(job).updateStatus();
      await().atMost(Duration.ofSeconds(20)).until(() -> client.nodes().withName("gpu-new-0").get().getSpec().getTaints()
          .isEmpty());
      // Decisions are recorded once their write succeeded: the last may follow the taint's removal by a moment.
      await().atMost(Duration.ofSeconds(20)).until(() -> service.get("/api/v1/decisions?limit=20").body()
          .contains("\"reason\":\"released\""));
      assertThat(service.get("/api/v1/decisions?limit=20").body()).contains("\"reason\":\"preflight_started\"",
          "\"reason\":\"preflight_passed\"");
      assertThat(service.get("/api/v1/nodes").body()).doesNotContain("\"stage\":\"preflight\"");
    }
  }
}
