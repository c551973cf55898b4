package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each stage hands off to the next on the event that ends it, never on the loop's timer: with the timer and the retry
 * delay at ten minutes, a drain held by a budget finishes when its pod leaves (the drained node's pod watch), and the
 * diagnosis ends the episode when its Job completes (the Job watch).
 */
class WatchDrivenHandoffMockTest {
  private static final String NODE = "gpu-node-1";
  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;
  @AutoClose private KubernetesClient client;

  @Test
  void theDrainEndsWhenItsLastPodLeavesAndTheEpisodeWhenItsJobCompletesWithTheTimerAtTenMinutes() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    Nodes.trainerHeldByBudget(client, server, NODE);
    Tokens.write(dir, "handoff-test-token");
    Path config = ServiceConfig.writeShipped(dir,
        "safety: {max_unavailable: 50%}\nloop: {interval: 10m, retry_delay: 10m}\n");
    Alert xid = Alerts.xid(NODE, "79");
    try (RunningService service = new RunningService(config, server, Alerts.liveClock(), "handoff-test-token")) {
      assertThat(service.post(xid)).contains("actions_applied");
      service.awaitStage(NODE, "draining", n -> n.getString("progress").contains("waiting on PDB ml-training/llm-pdb"));
      JsonObject draining = new JsonObject(service.get("/api/v1/safety").body()).getJsonArray("limits").stream()
          .map(JsonObject.class::cast).filter(l -> l.getString("limit").equals("max_draining")).findFirst()
          .orElseThrow();
      assertThat(draining.getInteger("used")).as("the drain holds its slot").isEqualTo(1);
      assertThat(draining.getInteger("allowed")).as("max_draining's default: 2").isEqualTo(2);
      assertThat(service.get("/metrics").body()).contains("remediator_limit_used{limit=\"max_draining\",} 1.0");

      // The job moves its pod away by itself (a checkpoint, then exit): the drain is over, minutes before any timer.
      client.pods().inNamespace("ml-training").withName("trainer-0").withGracePeriod(0).delete();
      service.awaitStage(NODE, "drained", n -> true);

      assertThat(service.post(Alerts.resolved(xid))).contains("resolved_actions_applied");
      service.awaitStage(NODE, "diagnosing", n -> n.getJsonObject("step").getString("running", "").equals("diagnose"));
      await().atMost(Duration.ofSeconds(20)).until(() -> client.batch().v1().jobs().inNamespace("gpu-remediator").list()
          .getItems().size() == 1);
      Job job = client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems().get(0);
      job.setStatus(new JobStatusBuilder().addNewCondition().withType("Complete").withStatus("True").endCondition().build());
      client.batch().v1().jobs().inNamespace("gpu-remediator").resource(job).updateStatus();
      // The release's decision is recorded just after its ledger write: wait for both.
      await().atMost(Duration.ofSeconds(20)).until(() -> service.node(NODE).isEmpty()
          && service.decisions().contains("\"reason\":\"released\""));
    }
  }
}
