package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each limit's reason code, the 200-node storm and 50 concurrent copies, over HTTP against the mock API server. */
@EnableKubernetesMockClient(crud = true)
class SafetyLimitsMockTest {
  KubernetesMockServer server;
  KubernetesClient mockClient;
  @TempDir Path dir;

  private final List<RunningService> services = new ArrayList<>();
  private RunningService service;

  private void start(int nodes, String safety) throws Exception {
    KubernetesClient client = Nodes.noRetry(mockClient);
    for (int i = 0; i < nodes; i++) {
      client.nodes().resource(Nodes.gpu("gpu-node-" + i, "10.1." + (i / 250) + "." + (i % 250 + 1))).create();
    }
    Path f = ServiceConfig.writeOpen(dir, "safety: " + safety + "\n");
    service = RunningService.ready(f, KubeApi.of(client), Alerts.liveClock(), Optional.empty());
    services.add(service);
  }

  @AfterEach
  void stop() {
    services.forEach(RunningService::close);
  }

  private JsonArray post(Alert... alerts) throws Exception {
    HttpResponse<String> r = service.alerts(alerts);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return RunningService.decisionsOf(r);
  }

  private static List<String> reasons(JsonArray decisions) {
    return decisions.stream().map(d -> ((JsonObject) d).getString("reason")).toList();
  }

  private static Alert xid(int node, Instant startsAt) {
    Alert a = Alerts.xid("gpu-node-" + node, "79");
    return new Alert(a.status(), a.labels(), a.annotations(), startsAt, Optional.empty(), "", a.fingerprint());
  }

  private long cordoned(int nodes) {
    return IntStream.range(0, nodes).filter(i ->
        Boolean.TRUE.equals(mockClient.nodes().withName("gpu-node-" + i).get().getSpec().getUnschedulable())).count();
  }

  @Test
  void aStormPayloadOf200NodesOpensTheBreakerAndQuarantinesNone() throws Exception {
    start(200, "{max_unavailable: 10%, rate_limit: 10/1h, breaker: {nodes: 5, window: 10m}}");
    Instant now = Instant.now();
    JsonArray decisions = post(IntStream.range(0, 200).mapToObj(i -> xid(i, now)).toArray(Alert[]::new));
    assertThat(reasons(decisions)).hasSize(200).containsOnly("breaker_open");
    assertThat(cordoned(200)).isZero();
  }

  @Test
  void fiftyConcurrentCopiesOfOneAlertProduceOneQuarantine() throws Exception {
    start(5, "{max_unavailable: 100%, rate_limit: 10/1h}");
    Alert alert = xid(2, Instant.now());
    List<CompletableFuture<HttpResponse<String>>> copies = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      copies.add(service.alertsAsync(alert));
    }
    List<String> reasons = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> c : copies) {
      reasons.addAll(reasons(new JsonObject(c.get().body()).getJsonArray("decisions")));
    }
    assertThat(reasons).filteredOn("actions_applied"::equals).hasSize(1);
    assertThat(reasons).filteredOn("duplicate_episode"::equals).hasSize(49);
    await().atMost(Duration.ofSeconds(10)).until(() -> mockClient.v1().events().inNamespace("default").list().getItems()
        .stream().anyMatch(e -> e.getReason().equals("GpuXidHardwareError"))); // written after the answer
    assertThat(mockClient.v1().events().inNamespace("default").list().getItems())
        .filteredOn(e -> e.getReason().equals("GpuXidHardwareError")).hasSize(1);
  }

  @Test
  void maxUnavailableRoundsDownAndCountsNodesAlreadyUnavailable() throws Exception {
    // 15% of 10 nodes is 1.5: one node may go.
    start(10, "{max_unavailable: 15%, rate_limit: 10/1h}");
    Instant now = Instant.now();
    assertThat(reasons(post(xid(1, now)))).containsExactly("actions_applied");
    JsonArray refused = post(xid(2, now));
    assertThat(reasons(refused)).containsExactly("max_unavailable");
    assertThat(refused.getJsonObject(0).getString("outcome")).isEqualTo("suppressed");
    assertThat(cordoned(10)).isEqualTo(1);
  }

  @Test
  void theFleetRateLimitRefusesTheThirdStartInTheWindow() throws Exception {
    start(10, "{max_unavailable: 100%, rate_limit: 2/1h}");
    Instant now = Instant.now();
    // The nodes of one webhook are written side by side: which two of the three start first is not the webhook's order.
    assertThat(reasons(post(xid(1, now), xid(2, now), xid(3, now))))
        .containsExactlyInAnyOrder("actions_applied", "actions_applied", "rate_limited");
  }

  @Test
  void cooldownRefusesTheSamePlaybookOnAReleasedNode() throws Exception {
    start(10, "{max_unavailable: 100%, rate_limit: 10/1h, cooldown: 1h}");
    Alert first = xid(4, Instant.now().minusSeconds(60));
    post(first);
    assertThat(reasons(post(Alerts.resolved(first)))).containsExactly("resolved_actions_applied");
    assertThat(reasons(post(xid(4, Instant.now())))).containsExactly("cooldown");
    assertThat(cordoned(10)).isZero();
  }

  @Test
  void afterAResetNothingIsReplayedAndOnlyWhatStillFiresIsActedOn() throws Exception {
    start(20, "{max_unavailable: 100%, rate_limit: 100/1h, breaker: {nodes: 3, window: 10m}}");
    Instant now = Instant.now();
    Alert[] storm = IntStream.range(0, 8).mapToObj(i -> xid(i, now)).toArray(Alert[]::new);
    assertThat(reasons(post(storm))).containsOnly("breaker_open");
    Alert[] resolved = IntStream.range(1, 8).mapToObj(i -> Alerts.resolved(storm[i])).toArray(Alert[]::new);
    post(resolved);
    assertThat(service.send("POST", "/api/v1/breaker/reset", Http.text("{}"), "application/json").statusCode())
        .isEqualTo(200);
    assertThat(cordoned(20)).as("the reset acts on nothing").isZero();
    // Alertmanager re-sends the one still firing; one node is no storm.
    assertThat(reasons(post(storm[0]))).containsExactly("actions_applied");
    assertThat(cordoned(20)).isEqualTo(1);
  }
}
