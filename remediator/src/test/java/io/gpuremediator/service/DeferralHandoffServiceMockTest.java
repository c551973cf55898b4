package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.OnCallReceiver;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-offs both ways through the whole service, with the EKS overlay's own {@code defer_to} list (read from
 * deploy/aws/remediator.yaml) and one taint another repairer sets, taken over at its deadline. A node the EKS node
 * monitoring agent marks, rebooted by node auto repair and cleared, is handed back: our cordon lifted, the episode
 * {@code closed_by="other"} in the recovery metric. A node that shows a Karpenter repair condition is never rebooted by
 * us; its repairer never acting, people are paged once at the deadline. The taint's repairer never acting, our episode
 * takes the node over and reboots it.
 */
class DeferralHandoffServiceMockTest {
  private static final String TOKEN = "deferral-test-token-0123456789";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-reboot", """
            - drain: {mode: evict, timeout: 30m, grace_period: 1m}
            - reboot: {method: job, timeout: 30m}
          on_resolved:
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
      """);

  @TempDir Path dir;
  @AutoClose private OnCallReceiver oncall;
  @AutoClose private EmulatedApiServer server;
  private KubernetesClient client;

  @Test
  void theOtherRepairersRebootHandsBackAKarpenterConditionIsNeverRebootedAndANodeNobodyRepairsIsPagedOrTakenOver()
      throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 3);
    oncall = new OnCallReceiver(dir.resolve("oncall-url"));
    Tokens.write(dir, TOKEN);
    Files.writeString(dir.resolve("playbooks.yaml"), PLAYBOOKS);
    Path config = ServiceConfig.write(dir.resolve("remediator.yaml"), "playbooks.yaml",
        "leader_election: {enabled: false}\nloop: {interval: 200ms, retry_delay: 200ms}\n"
        + "limits: {client_rate: 100000/1s}\n" // the test's clock stands still between its moves: so would the bucket's refill
        + "notify: {receivers: [{name: pager, type: slack, url_file: oncall-url}]}\n"
        + "safety: {max_unavailable: 100%, rate_limit: 100/1h, breaker: {nodes: 50, window: 10m}, page: [pager]}\n"
        + shippedEksDeferList() + "  - taint: {key: example.com/repairing}\n    deadline: 30m\n    then: take_over\n");
    condition("gpu-node-0", "AcceleratedHardwareReady", "NvidiaXID79Error");
    condition("gpu-node-1", "KernelReady", "KernelBug");
    client.nodes().withName("gpu-node-2").edit(n -> {
      n.getSpec().getTaints().add(new TaintBuilder().withKey("example.com/repairing").withEffect("NoSchedule").build());
      return n;
    });
    MutableClock clock = new MutableClock(Alerts.STARTS.plusSeconds(60));
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), clock, Optional.of(TOKEN))) {
      for (String node : List.of("gpu-node-0", "gpu-node-1", "gpu-node-2")) {
        assertThat(service.post(Alerts.xid(node, "79"))).as("quarantined, then deferred").contains("actions_applied");
        service.awaitStage(node, "deferred", n -> true);
        assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isTrue();
      }

      rebootedAndCleared("gpu-node-0", "AcceleratedHardwareReady"); // EKS node auto repair's reboot, the agent's clear
      // The episode's end is decided just after its last write: wait for the decision and the metric, not the write.
      await().atMost(Duration.ofSeconds(20)).until(() -> service.get("/metrics").body().contains(
          "remediator_episode_duration_seconds_count{playbook=\"gpu-reboot\",outcome=\"released\",closed_by=\"other\",} 1.0"));
      assertThat(service.decisions()).contains("\"reason\":\"handed_back\"");
      assertThat(service.node("gpu-node-0")).as("no episode left").isEmpty();
      assertThat(client.nodes().withName("gpu-node-0").get().getSpec().getUnschedulable()).as("our cordon lifted").isNotEqualTo(true);

      clock.advance(Duration.ofMinutes(31));
      await().atMost(Duration.ofSeconds(20)).until(() -> !rebootJobs("gpu-node-2").isEmpty());
      assertThat(service.decisions()).contains("\"reason\":\"deferral_taken_over\"");
      Nodes.booted(client, "gpu-node-2", "gpu-node-2-boot-2", true); // our reboot of the node taken over, then its alert
      assertThat(service.post(Alerts.resolved(Alerts.xid("gpu-node-2", "79")))).contains("\"outcome\":\"applied\"");
      await().atMost(Duration.ofSeconds(20)).until(() -> service.node("gpu-node-2").isEmpty()); // released

      clock.advance(Duration.ofMinutes(30));
      await().atMost(Duration.ofSeconds(20)).until(() -> oncall.received().stream().anyMatch(m -> m.startsWith("gpu-node-1"
          + " needs a human (gpu-reboot): gpu-node-1 still shows condition KernelReady=False 1h after it was deferred")));
      clock.advance(Duration.ofMinutes(30));
      // Looks go on meanwhile: a new fault on gpu-node-0, no sign on it now, is ours from quarantine to reboot.
      assertThat(service.post(Alerts.startingAt(Alerts.xid("gpu-node-0", "79"), Alerts.STARTS.plus(Duration.ofHours(2)))))
          .contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> !rebootJobs("gpu-node-0").isEmpty());
      assertThat(oncall.received().stream().filter(m -> m.startsWith("gpu-node-1"))).as("paged once").hasSize(1);
      assertThat(rebootJobs("gpu-node-1")).as("a node a Karpenter repair condition shows: never rebooted by us").isEmpty();
      service.awaitStage("gpu-node-1", "deferred", n -> true);
    }
  }

  /** The defer_to list of deploy/aws/remediator.yaml, as it is shipped. */
  private static String shippedEksDeferList() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("../deploy/aws/remediator.yaml"));
    int start = lines.indexOf("defer_to:");
    return lines.subList(start, lines.size()).stream().takeWhile(l -> l.equals("defer_to:") || l.startsWith("  "))
        .collect(Collectors.joining("\n", "", "\n"));
  }

  private List<String> rebootJobs(String node) {
    return client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems().stream()
        .filter(j -> node.equals(j.getSpec().getTemplate().getSpec().getNodeName())).map(j -> j.getMetadata().getName())
        .toList();
  }

  private void condition(String node, String type, String reason) {
    client.nodes().withName(node).editStatus(n -> {
      n.getStatus().getConditions().add(new NodeConditionBuilder().withType(type).withStatus("False").withReason(reason)
          .withLastTransitionTime("2026-11-22T10:00:30Z").withLastHeartbeatTime("2026-11-22T10:00:30Z").build());
      return n;
    });
  }

  /** The node as it comes back from the other repairer's reboot: a new boot ID, its condition True (409s retried). */
  private void rebootedAndCleared(String node, String type) {
    await().atMost(Duration.ofSeconds(20)).ignoreExceptionsMatching(t -> t instanceof KubernetesClientException e
        && e.getCode() == 409).until(() -> {
          client.nodes().withName(node).editStatus(n -> {
            n.getStatus().getNodeInfo().setBootID(node + "-boot-2");
            n.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).forEach(c -> c.setStatus("True"));
            return n;
          });
          return true;
        });
  }
}
