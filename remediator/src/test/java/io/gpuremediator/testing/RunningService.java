package io.gpuremediator.testing;

import static org.awaitility.Awaitility.await;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.RemediatorService;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * One instance of the whole service for a test: started on a config over a Kubernetes API (the emulated API server,
 * or a mock), waited for until ready (unless asked not to), driven over HTTP with its bearer token, and stopped (with
 * its loop and node cache) on close. The one harness of every whole-service test.
 */
public final class RunningService implements AutoCloseable {
  /** How long a start may take to become ready. */
  public static final Duration READY = Duration.ofSeconds(30);

  private final RemediatorService service;
  private final int port;
  private final Optional<String> token;
  private final Optional<String> operatorToken;

  private RunningService(RemediatorService service, int port, Optional<String> token) {
    this.service = service;
    this.port = port;
    this.token = token;
    this.operatorToken = token.map(Tokens::operator);
  }

  /** Starts the service on the config file over the emulated API server, and waits until it is ready. */
  public RunningService(Path config, EmulatedApiServer server, Clock clock, String token) throws Exception {
    this(startOn(ConfigLoader.load(config).config().orElseThrow(), KubeApi.of(server.client()), clock), token);
  }

  private RunningService(Started started, String token) {
    this(started.service(), started.port(), Optional.of(token));
    awaitReady();
  }

  private record Started(RemediatorService service, int port) {}

  private static Started startOn(RemediatorConfig config, KubeApi kube, Clock clock) throws Exception {
    RemediatorService s = new RemediatorService(config, kube, clock);
    return new Started(s, s.start());
  }

  /** Starts the service and waits until it is ready; {@code token} is its bearer token, if auth is on. */
  public static RunningService ready(Path config, KubeApi kube, Clock clock, Optional<String> token) throws Exception {
    RunningService s = started(config, kube, clock, token);
    s.awaitReady();
    return s;
  }

  /** Starts the service without waiting for it to be ready (a test of readiness itself). */
  public static RunningService started(Path config, KubeApi kube, Clock clock, Optional<String> token) throws Exception {
    return started(ConfigLoader.load(config).config().orElseThrow(), kube, clock, token);
  }

  /** The same, from a loaded config. */
  public static RunningService started(RemediatorConfig config, KubeApi kube, Clock clock, Optional<String> token)
      throws Exception {
    Started st = startOn(config, kube, clock);
    return new RunningService(st.service(), st.port(), token);
  }

  /** Waits until {@code /readyz} answers 200. */
  public RunningService awaitReady() {
    await().atMost(READY).until(() -> Http.status(port, "/readyz") == 200);
    return this;
  }

  /** The port of the main listener. */
  public int port() {
    return port;
  }

  /** The port of {@code status_listen}, if it is configured. */
  public Optional<Integer> statusPort() {
    return service.statusPort();
  }

  /**
   * Any request to the main listener, with the token of its role: the webhook's for {@code POST /api/v1/alerts}, the
   * operator's ({@link Tokens#operator}) for everything else.
   */
  public HttpResponse<String> send(String method, String path, byte[] body, String contentType) throws IOException, InterruptedException {
    return Http.send(port, method, path, body, contentType, path.startsWith("/api/v1/alerts") ? token : operatorToken);
  }

  /** A GET with the token. */
  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send("GET", path, new byte[0], "");
  }

  /** A POST of JSON with the token. */
  public HttpResponse<String> postJson(String path, String json) throws IOException, InterruptedException {
    return send("POST", path, Http.text(json), "application/json");
  }

  /** A webhook of these alerts; the answer. */
  public HttpResponse<String> alerts(Alert... alerts) throws IOException, InterruptedException {
    return postJson("/api/v1/alerts", Alerts.json(alerts));
  }

  /** A webhook of these alerts, answered later (for many at once). */
  public CompletableFuture<HttpResponse<String>> alertsAsync(Alert... alerts) {
    return Http.sendAsync(port, "POST", "/api/v1/alerts", Http.text(Alerts.json(alerts)), "application/json", token);
  }

  /** A webhook of these alerts; the answer's body. */
  public String post(Alert... alerts) throws IOException, InterruptedException {
    return alerts(alerts).body();
  }

  /** The decisions a webhook's answer lists. */
  public static JsonArray decisionsOf(HttpResponse<String> answer) {
    return new JsonObject(answer.body()).getJsonArray("decisions");
  }

  /** The node as GET /api/v1/nodes shows it, if it is under remediation. */
  public Optional<JsonObject> node(String name) throws IOException, InterruptedException {
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
  public void awaitStage(String name, String stage, Predicate<JsonObject> also) {
    await().atMost(Duration.ofSeconds(20)).until(() -> node(name).filter(n -> stage.equals(n.getString("stage")))
        .filter(also).isPresent());
  }

  /** The body of GET /api/v1/decisions. */
  public String decisions() throws IOException, InterruptedException {
    return get("/api/v1/decisions").body();
  }

  @Override
  public void close() {
    service.close();
  }
}
