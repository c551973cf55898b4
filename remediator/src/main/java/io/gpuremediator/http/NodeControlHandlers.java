package io.gpuremediator.http;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.episode.HumanControls;
import io.gpuremediator.node.FieldRule;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * A human's controls over a node's episodes: {@code POST /api/v1/nodes/{node}/release} and
 * {@code /retry}, each with {@code {"reason": "..."}}. They write to the node, so they run on the workers.
 */
final class NodeControlHandlers {
  private final HumanControls controls;
  private final WorkerExecutor workers;

  NodeControlHandlers(HumanControls controls, WorkerExecutor workers) {
    this.controls = controls;
    this.workers = workers;
  }

  void release(RoutingContext ctx) {
    handle(ctx, "release", (node, reason) -> controls.release(node, reason, "POST /api/v1/nodes/" + node + "/release"));
  }

  void retry(RoutingContext ctx) {
    handle(ctx, "retry", (node, reason) -> controls.retry(node, reason, "POST /api/v1/nodes/" + node + "/retry"));
  }

  private void handle(RoutingContext ctx, String what, BiFunction<String, String, HumanControls.Result> work) {
    String node = ctx.pathParam("node");
    if (node == null || FieldRule.DNS_SUBDOMAIN.check(node).isPresent()) {
      JsonAnswers.json(ctx, 404, JsonAnswers.error("node: not a valid node name"));
      return;
    }
    Optional<String> reason = OperatorRequests.body(ctx, null).flatMap(b -> OperatorRequests.reason(ctx, b));
    if (reason.isEmpty()) {
      return;
    }
    workers.executeBlocking(() -> work.apply(node, reason.get()), false).onComplete(done -> {
      if (done.failed()) {
        ctx.fail(done.cause());
        return;
      }
      HumanControls.Result result = done.result();
      JsonArray decisions = new JsonArray();
      for (Decision d : result.decisions()) {
        decisions.add(DecisionJson.of(d));
      }
      switch (result.status()) {
        case DONE -> JsonAnswers.json(ctx, 200, new JsonObject().put("node", node).put(what, "done").put("decisions", decisions));
        case UNKNOWN_NODE -> JsonAnswers.json(ctx, 404, JsonAnswers.error(result.message()));
        case NOTHING_TO_DO -> JsonAnswers.json(ctx, 409, JsonAnswers.error(result.message()));
        case FAILED -> JsonAnswers.json(ctx, 422, JsonAnswers.error(result.message()));
        case BUSY, NOT_LEADER -> {
          ctx.response().putHeader("Retry-After", "5");
          JsonAnswers.json(ctx, 503, JsonAnswers.error(result.message()).put("decisions", decisions));
        }
      }
    });
  }
}
