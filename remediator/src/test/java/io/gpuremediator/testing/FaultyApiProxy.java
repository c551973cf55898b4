package io.gpuremediator.testing;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * An HTTP proxy in front of an API server that injects the faults a busy control plane shows: 5xx answers
 * (before the request reaches the server, or after it was applied: the client cannot tell), 429 with
 * Retry-After, connections reset (before or after), 2 s stalls, 409 conflicts on updates; watches (WebSockets)
 * are passed through, reset now and then, and cut altogether during outages ({@link #cutWatches}).
 *
 * <p>Faults are drawn from a seeded random; every one is counted by kind. The proxy also remembers, per
 * node, each version of the node the server answered a write with, so a test can count how often a node
 * really changed state ({@link #nodeWrites}).
 */
public final class FaultyApiProxy implements AutoCloseable {
  /** Fault kinds, in the order they are drawn, with their probabilities per request. */
  public enum Fault {
    SERVER_ERROR_BEFORE(0.10), TIMEOUT_AFTER_APPLIED(0.10), THROTTLED(0.03), RESET_BEFORE(0.025),
    RESET_AFTER_APPLIED(0.025), STALL(0.01), CONFLICT(0.05);

    final double p;

    Fault(double p) {
      this.p = p;
    }
  }

  private static final Set<String> HOP_BY_HOP = Set.of("host", "connection", "content-length", "transfer-encoding",
      "keep-alive", "upgrade");
  private static final long STALL_MILLIS = 2_000;

  private final Vertx vertx = Vertx.vertx();
  private final URI upstream;
  private final HttpClient client;
  private final WebSocketClient sockets;
  private final HttpServer server;
  private final Random random;
  private final Map<Fault, AtomicInteger> injected = new ConcurrentHashMap<>();
  private final AtomicInteger watchResets = new AtomicInteger();
  private final AtomicInteger nodeWatchesOpened = new AtomicInteger();
  private final Set<HttpConnection> nodeWatches = ConcurrentHashMap.newKeySet();
  private final AtomicLong nodeWatchDownSince = new AtomicLong(System.nanoTime());
  private final Map<String, Map<Long, JsonObject>> nodeVersions = new ConcurrentHashMap<>();
  private volatile long watchesCutUntil;

  private FaultyApiProxy(URI upstream, long seed) throws Exception {
    this.upstream = upstream;
    this.random = new Random(seed);
    this.client = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(64).setKeepAlive(true));
    this.sockets = vertx.createWebSocketClient();
    this.server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
        .requestHandler(this::handle).listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Starts a proxy on 127.0.0.1 in front of {@code upstreamUrl}, drawing faults from {@code seed}. */
  public static FaultyApiProxy start(String upstreamUrl, long seed) throws Exception {
    return new FaultyApiProxy(URI.create(upstreamUrl), seed);
  }

  /** The proxy's URL, to give the client under test. */
  public String url() {
    return "http://127.0.0.1:" + server.actualPort() + "/";
  }

  /** Closes every node watch now and refuses new watches (503) for {@code millis}: an outage of the watch path. */
  public void cutWatches(long millis) {
    watchesCutUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    vertx.runOnContext(v -> nodeWatches.forEach(HttpConnection::close));
  }

  /** Since when (System.nanoTime) no node watch has been open through the proxy, or -1 while one is. */
  public long nodeWatchDownSince() {
    return nodeWatchDownSince.get();
  }

  /** Faults injected so far, by kind. */
  public Map<Fault, Integer> injected() {
    Map<Fault, Integer> copy = new TreeMap<>();
    injected.forEach((k, v) -> copy.put(k, v.get()));
    return copy;
  }

  /** Every fault injected, watch resets included. */
  public int faultCount() {
    return injected.values().stream().mapToInt(AtomicInteger::get).sum() + watchResets.get();
  }

  /** Node watches opened (the first, and every re-watch after a reset or an outage). */
  public int nodeWatchesOpened() {
    return nodeWatchesOpened.get();
  }

  /** Node watches reset. */
  public int watchResets() {
    return watchResets.get();
  }

  /**
   * Each version of the node that a write through the proxy produced (by resourceVersion, oldest first):
   * what the server stored, whatever the client was told.
   */
  public Map<Long, JsonObject> nodeWrites(String node) {
    return new TreeMap<>(nodeVersions.getOrDefault(node, Map.of()));
  }

  private void handle(HttpServerRequest req) {
    if ("websocket".equalsIgnoreCase(req.getHeader("Upgrade"))) {
      watch(req);
      return;
    }
    req.body().onSuccess(body -> {
      Fault fault = draw(req.method());
      if (fault != null) {
        injected.computeIfAbsent(fault, k -> new AtomicInteger()).incrementAndGet();
      }
      if (fault == null) {
        forward(req, body, (code, answer) -> answer(req, code, answer));
        return;
      }
      switch (fault) {
        case SERVER_ERROR_BEFORE -> status(req, 500, "InternalError", "etcdserver: leader changed", null);
        case THROTTLED -> status(req, 429, "TooManyRequests", "Too many requests, please try again later.", "1");
        case CONFLICT -> status(req, 409, "Conflict", "Operation cannot be fulfilled: the object has been modified; "
            + "please apply your changes to the latest version and try again", null);
        case RESET_BEFORE -> req.connection().close();
        case STALL -> vertx.setTimer(STALL_MILLIS, id -> forward(req, body, (code, answer) -> answer(req, code, answer)));
        case TIMEOUT_AFTER_APPLIED -> forward(req, body, (code, answer) -> status(req, 504, "Timeout",
            "Timeout: request did not complete within requested timeout - context deadline exceeded", null));
        case RESET_AFTER_APPLIED -> forward(req, body, (code, answer) -> req.connection().close());
        default -> throw new IllegalStateException(fault.name());
      }
    });
  }

  /** A fault for this request, or null; 409 only where the server could answer it (an update). */
  private synchronized Fault draw(HttpMethod method) {
    double x = random.nextDouble();
    for (Fault f : Fault.values()) {
      if (x < f.p) {
        return f == Fault.CONFLICT && method != HttpMethod.PUT && method != HttpMethod.PATCH ? null : f;
      }
      x -= f.p;
    }
    return null;
  }

  private void forward(HttpServerRequest req, Buffer body, BiConsumer<Integer, Response> then) {
    RequestOptions options = new RequestOptions().setMethod(req.method()).setHost(upstream.getHost())
        .setPort(upstream.getPort()).setURI(req.uri()).setHeaders(copy(req.headers()));
    client.request(options).compose(r -> r.send(body)).compose(resp -> resp.body().map(b -> new Response(resp.statusCode(),
        copy(resp.headers()), b))).onComplete(ar -> {
          if (ar.failed()) {
            status(req, 502, "InternalError", "proxy: " + ar.cause(), null);
            return;
          }
          remember(req, ar.result());
          then.accept(ar.result().code, ar.result());
        });
  }

  private void remember(HttpServerRequest req, Response response) {
    String path = req.path();
    if (response.code / 100 != 2 || req.method() == HttpMethod.GET || !path.startsWith("/api/v1/nodes/")) {
      return;
    }
    JsonObject node = new JsonObject(response.body);
    String name = node.getJsonObject("metadata").getString("name");
    long version = Long.parseLong(node.getJsonObject("metadata").getString("resourceVersion"));
    nodeVersions.computeIfAbsent(name, k -> new ConcurrentHashMap<>()).put(version, node);
  }

  private static void answer(HttpServerRequest req, int code, Response response) {
    req.response().setStatusCode(code).headers().addAll(response.headers);
    req.response().end(response.body);
  }

  private static void status(HttpServerRequest req, int code, String reason, String message, String retryAfter) {
    JsonObject status = new JsonObject().put("kind", "Status").put("apiVersion", "v1").put("metadata", new JsonObject())
        .put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
    if (retryAfter != null) {
      req.response().putHeader("Retry-After", retryAfter);
    }
    req.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(status.encode());
  }

  /**
   * Passes a watch through, unless the watch path is cut; a node watch is reset after a few seconds now and then.
   * A node watch counts as open from the moment the client's upgrade is accepted (what the client can see)
   * until its connection closes.
   */
  private void watch(HttpServerRequest req) {
    if (System.nanoTime() < watchesCutUntil) {
      status(req, 503, "ServiceUnavailable", "the watch cache is not ready", null);
      return;
    }
    boolean nodes = req.path().equals("/api/v1/nodes");
    HttpConnection connection = req.connection();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(upstream.getHost())
        .setPort(upstream.getPort()).setURI(req.uri());
    req.toWebSocket().onSuccess(down -> {
      AtomicReference<WebSocket> upstreamSocket = new AtomicReference<>();
      if (nodes) {
        nodeWatchesOpened.incrementAndGet();
        nodeWatches.add(connection);
        nodeWatchDownSince.set(-1);
      }
      down.closeHandler(v -> {
        if (nodes && nodeWatches.remove(connection) && nodeWatches.isEmpty()) {
          nodeWatchDownSince.set(System.nanoTime());
        }
        ignore(upstreamSocket.get());
      });
      sockets.connect(options).onComplete(ar -> {
        if (ar.failed()) {
          connection.close();
          return;
        }
        WebSocket up = ar.result();
        upstreamSocket.set(up);
        if (down.isClosed()) {
          ignore(up);
          return;
        }
        up.textMessageHandler(down::writeTextMessage);
        up.binaryMessageHandler(down::writeBinaryMessage);
        up.closeHandler(c -> connection.close());
        if (nodes && chance(0.5)) {
          vertx.setTimer(1_000 + nextLong(4_000), id -> {
            if (nodeWatches.contains(connection)) {
              watchResets.incrementAndGet();
              connection.close();
            }
          });
        }
      });
    });
  }

  /**
   * Leaves an upstream watch open and ignored rather than closing it: the mock server's watch handler blocks
   * its event loop (up to a minute) when a client closes a watch with an event in flight.
   */
  private static void ignore(WebSocket up) {
    if (up != null) {
      up.textMessageHandler(null).binaryMessageHandler(null).closeHandler(null);
    }
  }

  private synchronized boolean chance(double p) {
    return random.nextDouble() < p;
  }

  private synchronized long nextLong(long bound) {
    return (long) (random.nextDouble() * bound);
  }

  private static MultiMap copy(MultiMap headers) {
    MultiMap out = MultiMap.caseInsensitiveMultiMap();
    headers.forEach((k, v) -> {
      if (!HOP_BY_HOP.contains(k.toLowerCase(Locale.ROOT))) {
        out.add(k, v);
      }
    });
    return out;
  }

  private record Response(int code, MultiMap headers, Buffer body) {}

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
