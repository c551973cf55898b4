package io.gpuremediator.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A local AWS endpoint speaking the query protocol (form POSTs, XML answers) on 127.0.0.1: records every request and
 * hands each to its service with the next scripted answer for the calls that change something.
 */
public abstract class AwsQueryStub implements AutoCloseable {
  /** How the next scripted request is answered. */
  public enum Answer {
    OK, THROTTLED, RESOURCE_CONTENTION, APPLIED_ANSWER_LOST,
    /** Auto Scaling: the instance is younger than its group's grace period (the message recorded in tests/real/aws). */
    GRACE_PERIOD,
    /** EC2: the request's signature has expired (a clock the service disagrees with, credentials being refreshed). */
    REQUEST_EXPIRED
  }

  /** One request: its action and parameters. */
  public record Call(String action, Map<String, String> params) {}

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final Deque<Answer> script = new ArrayDeque<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();

  AwsQueryStub() throws Exception {
    server = vertx.createHttpServer().requestHandler(this::receive).listen(0, "127.0.0.1").toCompletionStage()
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Where the SDK reaches it ({@code cloud.aws.endpoint}). */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.actualPort());
  }

  /** Answers the next scripted requests so, in order (then OK). */
  public synchronized void next(Answer... answers) {
    script.addAll(List.of(answers));
  }

  /** Every request, in order. */
  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** How many requests of this action came (answered or not). */
  public long requests(String action) {
    return calls.stream().filter(c -> c.action().equals(action)).count();
  }

  /** The next scripted answer (OK when none is left). */
  synchronized Answer nextAnswer() {
    return script.isEmpty() ? Answer.OK : script.poll();
  }

  /** Answers one request of the service. */
  abstract void handle(HttpServerRequest req, String action, Map<String, String> params);

  private void receive(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      Map<String, String> params = new HashMap<>();
      for (String pair : body.toString(StandardCharsets.UTF_8).split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          params.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
      String action = params.getOrDefault("Action", "");
      calls.add(new Call(action, params));
      handle(req, action, params);
    });
  }

  static void xml(HttpServerRequest req, int status, String xml) {
    req.response().setStatusCode(status).putHeader("Content-Type", "text/xml").end(xml);
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
