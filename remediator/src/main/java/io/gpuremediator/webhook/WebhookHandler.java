package io.gpuremediator.webhook;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.engine.RemediationEngine;
import io.gpuremediator.engine.WebhookResult;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.vertx.core.Handler;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/v1/alerts}, after auth, content type, readiness and the body limit were checked:
 * decodes the body (400 when invalid), decides every alert on the engine's worker pool, and answers
 * 200 with a summary, or 503 when a required Kubernetes write failed transiently so that Alertmanager
 * retries.
 */
public final class WebhookHandler implements Handler<RoutingContext> {
  private static final Logger LOGGER = LoggerFactory.getLogger(WebhookHandler.class);

  private final WebhookDecoder decoder = new WebhookDecoder();
  private final RemediationEngine engine;
  private final WorkerExecutor workers;
  private final RemediatorMetrics metrics;

  /** Creates the handler. */
  public WebhookHandler(RemediationEngine engine, WorkerExecutor workers, RemediatorMetrics metrics) {
    this.engine = engine;
    this.workers = workers;
    this.metrics = metrics;
  }

  @Override
  public void handle(RoutingContext ctx) {
    long started = System.nanoTime();
    WebhookMessage message;
    try {
      message = decoder.decode(ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes());
    } catch (WebhookFormatException e) {
      answer(ctx, 400, new JsonObject().put("error", e.getMessage()), started);
      return;
    }
    for (Alert alert : message.alerts()) {
      metrics.alertReceived(alert.status().code());
    }
    workers.executeBlocking(() -> engine.handle(message), false).onComplete(done -> {
      if (done.failed()) {
        LOGGER.error("webhook with {} alerts could not be decided", message.alerts().size(), done.cause());
        answer(ctx, 503, new JsonObject().put("error", "internal error; retry"), started);
        return;
      }
      WebhookResult result = done.result();
      answer(ctx, result.shouldRetry() ? 503 : 200, summary(result), started);
    });
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
    Map<String, Integer> byOutcome = new TreeMap<>();
    StringBuilder decisions = new StringBuilder(result.decisions().size() * 200);
    for (Decision d : result.decisions()) {
      byOutcome.merge(d.outcome().code(), 1, Integer::sum);
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

  private static StringBuilder field(StringBuilder b, String name, String value) {
    return b.append('"').append(name).append("\":\"").append(ENCODER.quoteAsString(value)).append('"');
  }

  private static final com.fasterxml.jackson.core.io.JsonStringEncoder ENCODER =
      com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance();
}
