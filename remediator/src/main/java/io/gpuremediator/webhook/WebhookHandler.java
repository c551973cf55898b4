package io.gpuremediator.webhook;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.engine.RemediationEngine;
import io.gpuremediator.engine.WebhookResult;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.vertx.core.Handler;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonArray;
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
    metrics.webhookAnswered(code, (System.nanoTime() - started) / 1e9);
    ctx.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(body.encode());
  }

  private static JsonObject summary(WebhookResult result) {
    Map<String, Integer> byOutcome = new TreeMap<>();
    JsonArray decisions = new JsonArray();
    for (Decision d : result.decisions()) {
      byOutcome.merge(d.outcome().code(), 1, Integer::sum);
      decisions.add(new JsonObject().put("fingerprint", d.fingerprint()).put("alertname", d.alertname())
          .put("status", d.status()).put("node", d.node()).put("playbook", d.playbook())
          .put("outcome", d.outcome().code()).put("reason", d.reason().code()));
    }
    JsonObject outcomes = new JsonObject();
    byOutcome.forEach(outcomes::put);
    return new JsonObject().put("alerts", result.decisions().size()).put("outcomes", outcomes)
        .put("retry", result.shouldRetry()).put("decisions", decisions);
  }
}
