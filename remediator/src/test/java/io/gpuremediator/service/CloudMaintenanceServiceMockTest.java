package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.outbound.ScheduledEvent;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Ec2Stub;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole service with {@code cloud.aws.scheduled_events} against a local EC2 endpoint and the emulated API server,
 * behind a shared Alertmanager ({@code accept_alerts}): the leader's watch reads the scheduled reboot of a node's
 * instance, drains the node ahead of it with the shipped playbook, and GET /api/v1/fleet lists the event as due.
 */
class CloudMaintenanceServiceMockTest {
  private static final String NODE = "gpu-node-1";
  private static final String INSTANCE = "i-0123456789abcdef0";
  private static final String TOKEN = "maintenance-test-token";
  @TempDir Path dir;
  private EmulatedApiServer server;
  private KubernetesClient client;
  private Ec2Stub ec2;

  @AfterEach
  void stop() throws Exception {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    if (client != null) {
      client.close();
      server.close();
    }
    if (ec2 != null) {
      ec2.close();
    }
  }

  @Test
  void theLeadersWatchDrainsANodeAheadOfItsScheduledRebootAndTheFleetShowsIt() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    client.nodes().withName(NODE).edit(n -> {
      n.getSpec().setProviderID("aws:///us-west-2a/" + INSTANCE);
      return n;
    });
    ec2 = new Ec2Stub();
    Clock clock = Alerts.liveClock();
    Instant notBefore = clock.instant().plus(Duration.ofMinutes(30));
    ec2.events(INSTANCE, new ScheduledEvent(INSTANCE, "instance-event-0d59937288b749b32", "system-reboot",
        "The instance is scheduled for a reboot", notBefore, Optional.of(notBefore.plus(Duration.ofHours(2)))));
    Tokens.write(dir, TOKEN);
    // The SDK's default credentials chain reads these first; on EKS it finds IRSA's web identity instead.
    System.setProperty("aws.accessKeyId", "AKIDEXAMPLE");
    System.setProperty("aws.secretAccessKey", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    Path config = ServiceConfig.writeShipped(dir, "safety: {max_unavailable: 50%}\nloop: {interval: 200ms, retry_delay: 200ms}\n"
        + "accept_alerts: ['cluster=\"prod-a\"']\n"
        + "cloud: {aws: {region: us-west-2, endpoint: \"" + ec2.endpoint() + "\", scheduled_events: {every: 10s, lead: 2h}}}\n");

    try (RunningService service = RunningService.ready(config, KubeApi.of(client), clock,
        Optional.of(TOKEN))) {
      // The first look is 10 s after the start (the shortest `every`).
      await().atMost(Duration.ofSeconds(40)).until(() -> Boolean.TRUE.equals(client.nodes().withName(NODE).get().getSpec()
          .getUnschedulable()));
      service.awaitStage(NODE, "drained", n -> n.encode().contains("CloudMaintenanceScheduled"));
      JsonObject fleet = new JsonObject(service.get("/api/v1/fleet").body());
      assertThat(fleet.getJsonArray("maintenance")).singleElement().satisfies(m -> assertThat(((JsonObject) m).getMap())
          .containsEntry("node", NODE).containsEntry("event_code", "system-reboot").containsEntry("due", true)
          .containsEntry("not_before", notBefore.toString()));
      assertThat(ec2.requests("DescribeInstanceStatus")).isPositive();
      for (String other : new String[] {"gpu-node-0", "gpu-node-2", "gpu-node-3"}) {
        assertThat(client.nodes().withName(other).get().getSpec().getUnschedulable()).as(other).isNotEqualTo(Boolean.TRUE);
      }
    }
  }
}
