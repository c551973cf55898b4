package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.ConfigMapFleetStore;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.safety.FleetState;
import io.gpuremediator.safety.FleetState.Breaker;
import io.gpuremediator.safety.FleetState.Sighting;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's lock-out: about 148 bytes a node of fleet state passed the state ConfigMap's 1 MiB at about 7,100 nodes in
 * a storm, and from then on a pause, a resume and a breaker reset answered 503 (the API server refuses the write: simapi
 * answers as it does, 422 "Too long"). A storm of 20,000 selected nodes, the documented scale, each both firing and
 * acknowledged, now fits whole, and the on-call closes the breaker it opened; a storm past any fit sheds its oldest
 * sightings and the write still goes through.
 */
class FleetStateAtScaleMockTest {
  private static final String TOKEN = "fleet-scale-test-token-0123";
  private static final Instant T = Instant.parse("2026-11-22T10:00:00.123456789Z");
  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;
  @AutoClose private KubernetesClient client;

  /** A storm of {@code nodes} EC2-named nodes, each seen firing and acknowledged, the breaker open. */
  private static FleetState storm(int nodes) {
    Map<String, Sighting> firing = new TreeMap<>();
    Map<String, Sighting> acknowledged = new TreeMap<>();
    for (int i = 0; i < nodes; i++) {
      String name = "ip-10-" + (i / 65_536) + "-" + (i / 256 % 256) + "-" + (i % 256) + ".us-west-2.compute.internal";
      firing.put(name, new Sighting(T.plusMillis(i * 7L), T.plusSeconds(600).plusNanos(i * 1_003L)));
      acknowledged.put(name, new Sighting(T.minusSeconds(3600).plusMillis(i), T.minusSeconds(60)));
    }
    return new FleetState(new Breaker(true, T, nodes + " nodes within 10m"), Optional.empty(), List.of(T), Map.of(),
        firing, acknowledged);
  }

  private static int bytes(ConfigMap cm) {
    int n = 0;
    for (String v : cm.getData().values()) {
      n += v.getBytes(StandardCharsets.UTF_8).length;
    }
    for (String v : cm.getBinaryData().values()) {
      n += Base64.getDecoder().decode(v).length;
    }
    return n;
  }

  @Test
  void aStormOfTwentyThousandNodesFitsWholeAndTheOnCallClosesTheBreaker() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    FleetState storm = storm(20_000);
    ConfigMapFleetStore store = new ConfigMapFleetStore(client, "gpu-remediator", "gpu-remediator-state", "test",
        Clock.systemUTC());
    store.save(storm);
    ConfigMap stored = client.configMaps().inNamespace("gpu-remediator").withName("gpu-remediator-state").get();
    assertThat(bytes(stored)).as("20,000 nodes, firing and acknowledged").isLessThan(1024 * 1024);
    assertThat(store.load()).as("nothing shed").isEqualTo(storm);

    Tokens.write(dir, TOKEN);
    Path config = dir.resolve("remediator.yaml");
    ServiceConfig.write(config, ServiceConfig.IMMEDIATE_PLAYBOOKS, ServiceConfig.LEADING);
    try (RunningService s = RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.of(TOKEN))) {
      assertThat(new JsonObject(s.get("/api/v1/safety").body()).getJsonObject("breaker").getString("state"))
          .isEqualTo("open");
      String reason = "{\"reason\": \"the storm was an exporter rollout\", \"duration\": \"1h\"}";
      assertThat(s.send("POST", "/api/v1/pause", Http.text(reason), "application/json").statusCode()).isEqualTo(200);
      assertThat(s.send("DELETE", "/api/v1/pause", Http.text(reason), "application/json").statusCode()).isEqualTo(200);
      assertThat(s.send("POST", "/api/v1/breaker/reset", Http.text(reason), "application/json").statusCode())
          .isEqualTo(200);
      assertThat(new JsonObject(s.get("/api/v1/safety").body()).getJsonObject("breaker").getString("state"))
          .isEqualTo("closed");
    }
  }

  @Test
  void aStormPastAnyFitShedsItsOldestSightingsAndIsStillWritten() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    ConfigMapFleetStore store = new ConfigMapFleetStore(client, "gpu-remediator", "gpu-remediator-state", "test",
        Clock.systemUTC());
    store.save(storm(60_000));
    FleetState kept = store.load();
    assertThat(kept.breaker().open()).as("the breaker is never shed").isTrue();
    assertThat(kept.firing().size() + kept.acknowledged().size()).isBetween(1, 119_999);
    assertThat(kept.firing()).as("the firing sightings are the ones seen last").isNotEmpty();
    assertThat(bytes(client.configMaps().inNamespace("gpu-remediator").withName("gpu-remediator-state").get()))
        .isLessThan(1024 * 1024);
  }
}
