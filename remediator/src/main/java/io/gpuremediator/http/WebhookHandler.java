package io.gpuremediator.http;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.episode.WebhookResult;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.gpuremediator.node.Foreground;
import io.vertx.core.Handler;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/v1/alerts}, after auth, content type, readiness, admission and the body limit were checked:
 * decodes the body (400 when invalid) and decides every alert on the engine's worker pool, and answers
 * 200 with a summary, or 503 when a required Kubernetes write failed transiently so that Alertmanager
 * retries.
 */
public final class WebhookHandler implements Handler<RoutingContext> {
  private static final Logger LOGGER = LoggerFactory.getLogger(WebhookHandler.class);
  /** The routing context key under which an earlier handler marks a large body ({@code Boolean}). */
  public static final String LARGE = "webhook.large";

  private final WebhookDecoder decoder = new WebhookDecoder();
  private final RemediationEngine engine;
  private final WorkerExecutor workers;
  private final WorkerExecutor largeWorkers;
  private final RemediatorMetrics metrics;

  /**
   * Creates the handler: webhooks are decoded and decided on {@code workers}, those with large bodies (marked by
   * {@link #LARGE}) on {@code largeWorkers}, so that they never hold up the small ones.
   */
  public WebhookHandler(RemediationEngine engine, WorkerExecutor workers, WorkerExecutor largeWorkers, RemediatorMetrics metrics) {
    this.engine = engine;
    this.workers = workers;
    this.largeWorkers = largeWorkers;
    this.metrics = metrics;
  }

  @Override
  public void handle(RoutingContext ctx) {
    long started = System.nanoTime();
    Buffer body = ctx.body().buffer();
    WorkerExecutor executor = Boolean.TRUE.equals(ctx.get(LARGE)) ? largeWorkers : workers;
    // Copied and decoded off the event loop: a body of megabytes takes long enough to hold up every other request.
    // Alertmanager waits from here to the answer: the background's API calls give way meanwhile.
    executor.executeBlocking(() -> Foreground.decide(() -> decide(body)), false).onComplete(done -> {
      if (done.failed()) {
        LOGGER.error("a webhook of {} bytes could not be decided", body == null ? 0 : body.length(), done.cause());
        answer(ctx, 503, new JsonObject().put("error", "internal error; retry"), started);
      } else if (done.result().error() != null) {
        answer(ctx, 400, new JsonObject().put("error", done.result().error()), started);
      } else {
        WebhookResult result = done.result().result();
        // One line per webhook: its decisions by outcome (those that changed or refused something have lines of their own).
        LOGGER.info("webhook: {} alerts decided in {} ms: {}", result.decisions().size(),
            (System.nanoTime() - started) / 1_000_000, outcomes(result));
        answer(ctx, result.shouldRetry() ? 503 : 200, summary(result), started);
      }
    });
  }

  /** A decided webhook, or why its body is invalid. */
  private record Decided(WebhookResult result, String error) {}

  private Decided decide(Buffer body) {
    WebhookMessage message;
    try {
      message = decoder.decode(body == null ? new byte[0] : body.getBytes());
    } catch (WebhookFormatException e) {
      return new Decided(null, e.getMessage());
    }
    int firing = 0;
    for (Alert alert : message.alerts()) {
      firing += alert.isFiring() ? 1 : 0;
    }
    if (firing > 0) {
      metrics.alertsReceived(AlertStatus.FIRING.code(), firing);
    }
    if (firing < message.alerts().size()) {
      metrics.alertsReceived(AlertStatus.RESOLVED.code(), message.alerts().size() - firing);
    }
    return new Decided(engine.handle(message), null);
  }

  private void answer(RoutingContext ctx, int code, JsonObject body, long started) {
    answer(ctx, code, body.encode(), started);
  }

  private void answer(RoutingContext ctx, int code, String body, long started) {
    metrics.webhookAnswered(code, (System.nanoTime() - started) / 1e9);
    ctx.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(body);
  }

  /** The answer's JSON, written straight out: a 200-alert webhook answers 200 decisions. */
  static String summary(WebhookResult result) {
    Map<String, Integer> byOutcome = outcomes(result);
    StringBuilder decisions = new StringBuilder(result.decisions().size() * 200);
    for (Decision d : result.decisions()) {
      decisions.append(decisions.length() == 0 ? "{" : ",{");
      field(decisions, "fingerprint", d.fingerprint()).append(',');
      field(decisions, "alertname", d.alertname()).append(',');
      field(decisions, "status", d.status()).append(',');
      field(decisions, "node", d.node()).append(',');
      field(decisions, "playbook", d.playbook()).append(',');
      field(decisions, "outcome", d.outcome().code()).append(',');
      field(decisions, "reason", d.reason().code()).append('}');
    }
    StringBuilder out = new StringBuilder(decisions.length() + 160).append("{\"alerts\":").append(result.decisions().size())
        .append(",\"outcomes\":{");
    boolean first = true;
    for (Map.Entry<String, Integer> e : byOutcome.entrySet()) {
      out.append(first ? "" : ",").append('"').append(e.getKey()).append("\":").append(e.getValue());
      first = false;
    }
    return out.append("},\"retry\":").append(result.shouldRetry()).append(",\"decisions\":[").append(decisions).append("]}")
        .toString();
  }

  /** The webhook's decisions counted by outcome code, sorted. */
  private static Map<String, Integer> outcomes(WebhookResult result) {
    Map<String, Integer> byOutcome = new TreeMap<>();
    for (Decision d : result.decisions()) {
      byOutcome.merge(d.outcome().code(), 1, Integer::sum);
    }
    return byOutcome;
  }

  private static StringBuilder field(StringBuilder b, String name, String value) {
    b.append('"').append(name).append("\":\"");
    // Codes, names and fingerprints rarely need escaping: they are copied as they are, without an escaper's buffer.
    return (needsEscape(value) ? b.append(ENCODER.quoteAsString(value)) : b.append(value)).append('"');
  }

  private static boolean needsEscape(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\' || c > 0x7e) {
        return true;
      }
    }
    return false;
  }

  private static final JsonStringEncoder ENCODER =
      JsonStringEncoder.getInstance();
}
