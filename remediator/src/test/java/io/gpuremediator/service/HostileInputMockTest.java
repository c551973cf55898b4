package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The security review's low items, each as it was tried against the whole service (here with {@code
 * insecure_no_auth}, the weakest install): every one is now bad input, answered 4xx with a clear message, and none
 * acts or answers 5xx.
 */
class HostileInputMockTest {
  private static final String NODE = "gpu-node-1";
  @TempDir Path dir;
  @AutoClose private EmulatedApiServer server;
  @AutoClose private KubernetesClient client;

  private RunningService start() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    Path config = ServiceConfig.writeOpen(dir, "safety: {max_unavailable: 50%}\n");
    return RunningService.ready(config, KubeApi.of(client), Alerts.liveClock(), Optional.empty());
  }

  private static HttpResponse<String> raw(RunningService s, String method, String path, String body, String type)
      throws Exception {
    return Http.send(s.port(), method, path, Http.text(body), type, Optional.empty());
  }

  private static String alertJson(String startsAt, String labelName) {
    return "{\"version\":\"4\",\"status\":\"firing\",\"receiver\":\"gpu-remediator\",\"groupKey\":\"g\",\"alerts\":[{"
        + "\"status\":\"firing\",\"labels\":{\"alertname\":\"GpuXidHardwareError\",\"node\":\"" + NODE + "\","
        + "\"severity\":\"critical\",\"remediate\":\"true\",\"xid\":\"79\",\"gpu\":\"3\",\"" + labelName + "\":\"x\"},"
        + "\"annotations\":{},\"startsAt\":\"" + startsAt + "\",\"endsAt\":\"0001-01-01T00:00:00Z\","
        + "\"fingerprint\":\"0123abcd\"}]}";
  }

  @Test
  void eachLowItemOfTheReviewIsBadInputAnsweredFourHundredAndActsOnNothing() throws Exception {
    try (RunningService s = start()) {
      // A cross-site form (text/plain, no CORS preflight) reset the breaker under insecure_no_auth.
      HttpResponse<String> form = raw(s, "POST", "/api/v1/breaker/reset", "{\"reason\":\"csrf\"}", "text/plain");
      assertThat(form.statusCode()).isEqualTo(415);
      assertThat(raw(s, "POST", "/api/v1/safety/domains/topology.kubernetes.io/zone/a/reset", "{}", "text/plain")
          .statusCode()).isEqualTo(415);

      // A startsAt at the edge of Java's time range answered 503 after acting; another script's digits were taken.
      for (String time : new String[] {"+999999999-12-31T23:59:59Z", "2026-11-22T10:00:00.\u0661\u0662Z",
          "\u0662026-11-22T10:00:00Z"}) {
        HttpResponse<String> r = raw(s, "POST", "/api/v1/alerts", alertJson(time, "rack"), "application/json");
        assertThat(r.statusCode()).as(time).isEqualTo(400);
        assertThat(new JsonObject(r.body()).getString("error")).as(time).contains("is not an RFC 3339 time");
      }

      // A 60,000-character label name was refused as "nested too deep".
      HttpResponse<String> longName = raw(s, "POST", "/api/v1/alerts", alertJson("2026-11-22T10:00:00Z", "a".repeat(60_000)),
          "application/json");
      assertThat(longName.statusCode()).isEqualTo(400);
      assertThat(new JsonObject(longName.body()).getString("error"))
          .isEqualTo("body: a key (a label or annotation name) is longer than 1024 characters");
      assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).as("nothing acted").isNull();

      // A huge pause duration answered 500.
      // 60 parts of 999999999w: past Instant's range, so now + it threw.
      HttpResponse<String> pause = raw(s, "POST", "/api/v1/pause",
          "{\"reason\":\"x\",\"duration\":\"" + "999999999w".repeat(60) + "\"}", "application/json");
      assertThat(pause.statusCode()).isEqualTo(400);
      assertThat(new JsonObject(pause.body()).getString("error")).contains("is longer than any duration we take");

      // A resolved alert released an episode whatever its startsAt.
      Alert xid = Alerts.xid(NODE, "79");
      assertThat(s.post(xid)).contains("actions_applied");
      Alert other = Alerts.resolved(Alerts.startingAt(xid, xid.startsAt().minus(Duration.ofHours(3))));
      assertThat(s.post(other)).contains("\"reason\":\"resolved_other_episode\"");
      assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).as("still quarantined").isTrue();
      assertThat(s.post(Alerts.resolved(xid))).contains("resolved_actions_applied");
    }
  }
}
