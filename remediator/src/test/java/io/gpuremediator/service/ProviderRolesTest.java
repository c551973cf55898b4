package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.ClusterRoleTest.Call;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.JumpClock;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Provisioners;
import io.gpuremediator.testing.RunningService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/karpenter's and deploy/cluster-api's ClusterRoles against the calls their replacements make: the whole
 * service runs against the emulated API server and replaces four nodes, one through Karpenter and three through
 * Cluster API (a Machine its annotations name, one found by its nodeRef, one annotated for its MachineHealthCheck);
 * every request to the two API groups is turned into an RBAC permission, and each overlay must grant exactly those
 * of its group: a call it does not grant fails, and so does a grant no call uses.
 */
class ProviderRolesTest {
  private static final String TOKEN = "rbac-test-token-0123456789";
  private static final String SETUP_AGENT = "rbac-test-setup";
  private static final String PLAYBOOKS = """
      playbooks:
        - name: through-karpenter
          match: ['alertname="ReplaceThroughKarpenter"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: replace, effect: NoSchedule}
            - replace: {provider: karpenter, timeout: 1h}
        - name: through-cluster-api
          match: ['alertname="ReplaceThroughClusterApi"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: replace, effect: NoSchedule}
            - replace: {provider: cluster-api, timeout: 1h}
        - name: through-machine-health-check
          match: ['alertname="RemediateThroughClusterApi"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: replace, effect: NoSchedule}
            - replace: {provider: cluster-api, via: remediate_annotation, timeout: 1h}
      """;

  @TempDir Path dir;
  private EmulatedApiServer server;

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void eachProviderOverlayGrantsExactlyTheCallsOfItsReplacements() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient setup = new KubernetesClientBuilder().withConfig(new ConfigBuilder(server.client().getConfiguration())
        .withUserAgent(SETUP_AGENT).build()).build();
    IntStream.range(0, 6).forEach(i -> setup.nodes().resource(Nodes.gpu("gpu-node-" + i, "10.0.0." + (i + 1))).create());
    String claim = Provisioners.nodeClaim(setup, "gpu-node-0", "");
    Provisioners.machine(setup, "team-a", "gpu-md-0-aaaaa", "gpu-node-1", Optional.of("gpu-md-0-7f9c"));
    Provisioners.machine(setup, "team-a", "gpu-md-0-bbbbb", "gpu-node-2", Optional.of("gpu-md-0-7f9c"), false);
    Provisioners.machine(setup, "team-b", "gpu-md-1-ccccc", "gpu-node-3", Optional.of("gpu-md-1-1a2b"));
    Path playbooks = Files.createDirectories(dir.resolve("playbooks"));
    Files.writeString(playbooks.resolve("replace.yaml"), PLAYBOOKS);
    Files.writeString(dir.resolve("token"), TOKEN);
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nauth: {bearer_token_file: token}\nplaybooks: [" + playbooks + "]\n"
        + "safety: {max_unavailable: 100%, rate_limit: 100/1h, breaker: {nodes: 10, window: 10m},"
        + " replace_rate_limit: 10/24h}\n"
        + "loop: {interval: 200ms, retry_delay: 200ms}\n"
        + "leader_election: {enabled: false}\n"
        + "cloud: {karpenter: {}, cluster_api: {}}\n");
    List<RecordedRequest> sent = new ArrayList<>();
    try (RunningService service = RunningService.ready(config, KubeApi.of(server.client()), new JumpClock(),
        Optional.of(TOKEN))) {
      assertThat(service.post(alert("ReplaceThroughKarpenter", "gpu-node-0"), alert("ReplaceThroughClusterApi", "gpu-node-1"),
          alert("ReplaceThroughClusterApi", "gpu-node-2"), alert("RemediateThroughClusterApi", "gpu-node-3")))
          .contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        sent.addAll(drain());
        return Provisioners.nodeClaim(setup, claim).map(c -> c.getMetadata().getDeletionTimestamp() != null).orElse(true)
            && Provisioners.machine(setup, "team-a", "gpu-md-0-aaaaa").map(m -> m.getMetadata().getDeletionTimestamp() != null)
                .orElse(true)
            && Provisioners.machine(setup, "team-a", "gpu-md-0-bbbbb").map(m -> m.getMetadata().getDeletionTimestamp() != null)
                .orElse(true)
            && Provisioners.machine(setup, "team-b", "gpu-md-1-ccccc").map(m -> m.getMetadata().getAnnotations() != null
                && m.getMetadata().getAnnotations().containsKey("cluster.x-k8s.io/remediate-machine")).orElse(false)
            // each step has looked at what it asked of while the node goes
            && sent.stream().filter(r -> "GET".equals(r.getMethod()) && r.getPath().matches(".*/(nodeclaims|machines)/[^/?]+"))
                .count() >= 4;
      });
    }
    sent.addAll(drain());
    Set<Call> calls = new TreeSet<>();
    for (RecordedRequest r : sent) {
      if (!SETUP_AGENT.equals(r.getHeader("User-Agent")) && r.getPath().startsWith("/apis/")) {
        Call c = ClusterRoleTest.call(r);
        if (c.group().equals("karpenter.sh") || c.group().equals("cluster.x-k8s.io")) {
          calls.add(c);
        }
      }
    }
    for (String[] overlay : new String[][] {{"karpenter", "karpenter.sh"}, {"cluster-api", "cluster.x-k8s.io"}}) {
      Set<String> granted = ClusterRoleTest.grants(Path.of("../deploy/" + overlay[0] + "/clusterrole.yaml"), "ClusterRole");
      Set<String> used = new TreeSet<>();
      calls.stream().filter(c -> c.group().equals(overlay[1])).forEach(c -> used.add(c.grant()));
      assertThat(used).as("deploy/%s: the calls its replacements make (calls: %s)", overlay[0], calls)
          .isEqualTo(granted);
    }
  }

  private static Alert alert(String name, String node) {
    return Alerts.alert(AlertStatus.FIRING, name, "fp" + Integer.toHexString((name + node).hashCode()),
        Map.of("node", node, "severity", "critical", "remediate", "true"));
  }

  private List<RecordedRequest> drain() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
      out.add(r);
    }
    return out;
  }
}
