package io.gpuremediator.service;

import static org.awaitility.Awaitility.await;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One instance of the whole service, started on a config file over the emulated API server, waited for until
 * ready, driven over HTTP with its bearer token, and stopped (with its loop and node cache) on close.
 */
final class RunningService implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private final RemediatorService service;
  private final int port;
  private final String token;

  RunningService(Path config, EmulatedApiServer server, Clock clock, String token) throws Exception {
    this.token = token;
    service = new RemediatorService(ConfigLoader.load(config).config().orElseThrow(), KubeApi.of(server.client()), clock);
    port = service.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> get("/readyz").statusCode() == 200);
  }

  String post(Alert alert) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/alerts"))
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(Alerts.json(alert))).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The node as GET /api/v1/nodes shows it, if it is under remediation. */
  Optional<JsonObject> node(String name) throws Exception {
    JsonArray nodes = new JsonObject(get("/api/v1/nodes").body()).getJsonArray("nodes");
    for (int i = 0; i < nodes.size(); i++) {
      JsonObject n = nodes.getJsonObject(i);
      if (n.getString("node").equals(name) && n.getString("stage") != null) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  /** Waits (20 s at most) for the node to show this stage, and {@code also}. */
  void awaitStage(String name, String stage, Predicate<JsonObject> also) {
    await().atMost(Duration.ofSeconds(20)).until(() -> node(name).filter(n -> stage.equals(n.getString("stage")))
        .filter(also).isPresent());
  }

  String decisions() throws Exception {
    return get("/api/v1/decisions").body();
  }

  @Override
  public void close() {
    service.close();
  }
}
