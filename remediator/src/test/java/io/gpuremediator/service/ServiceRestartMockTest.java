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
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole service stopped mid-drain and again mid-diagnose, with the shipped playbooks, on the emulated API
 * server: each new instance resumes the episode from the node's ledger and finishes it once — the blocked pod
 * evicted once, after its budget allowed it; one diagnostic Job; the node back in service after it passed.
 */
class ServiceRestartMockTest {
  private static final String NODE = "gpu-node-1";
  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;
  @AutoClose private KubernetesClient client;

  @Test
  void aRestartMidDrainAndMidDiagnoseFinishesTheEpisodeOnce() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    Nodes.trainerHeldByBudget(client, server, NODE);
    Tokens.write(dir, "restart-test-token");
    Path config = ServiceConfig.writeShipped(dir,
        "safety: {max_unavailable: 50%}\nloop: {interval: 200ms, retry_delay: 200ms}\n");
    Alert xid = Alerts.xid(NODE, "79");

    try (RunningService first = instance(config)) {
      assertThat(first.post(xid)).contains("actions_applied");
      first.awaitStage(NODE, "draining", n -> n.getString("progress").contains("waiting on PDB ml-training/llm-pdb"));
    }
    try (RunningService second = instance(config)) {
      second.awaitStage(NODE, "draining", n -> true);
      server.allow("ml-training", "llm-pdb", 1);
      second.awaitStage(NODE, "drained", n -> true);
      assertThat(second.post(Alerts.resolved(xid))).contains("resolved_actions_applied");
      second.awaitStage(NODE, "diagnosing", n -> n.getJsonObject("step").getString("running", "").equals("diagnose"));
      await().atMost(Duration.ofSeconds(20)).until(() -> client.batch().v1().jobs().inNamespace("gpu-remediator").list()
          .getItems().size() == 1);
    }
    try (RunningService third = instance(config)) {
      third.awaitStage(NODE, "diagnosing", n -> true);
      Job job = client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems().get(0);
      job.setStatus(new JobStatusBuilder().addNewCondition().withType("Complete").withStatus("True").endCondition().build());
      client.batch().v1().jobs().inNamespace("gpu-remediator").resource(job).updateStatus();
      // The ledger's write comes first and its decision is recorded after it: wait for both.
      await().atMost(Duration.ofSeconds(20)).until(() -> third.node(NODE).isEmpty()
          && third.decisions().contains("\"reason\":\"released\""));
    }
    assertThat(client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).as("one Job per diagnose step")
        .hasSize(1);
    assertThat(server.evictionsGranted("ml-training", "trainer-0")).as("evicted once, after the budget allowed").isEqualTo(1);
    assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).isNotEqualTo(true);
    assertThat(client.nodes().withName(NODE).get().getSpec().getTaints()).isNullOrEmpty();
  }

  private RunningService instance(Path config) throws Exception {
    return new RunningService(config, server, Alerts.liveClock(), "restart-test-token");
  }
}
