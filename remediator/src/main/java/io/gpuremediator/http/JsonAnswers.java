package io.gpuremediator.http;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** How the API answers in JSON: a body, or an error naming what was wrong. */
final class JsonAnswers {
  private JsonAnswers() {}

  /** {@code {"error": message}}. */
  static JsonObject error(String message) {
    return new JsonObject().put("error", message);
  }

  /** Answers with the code and the body, unless the response has ended already. */
  static void json(RoutingContext ctx, int code, JsonObject body) {
    if (!ctx.response().ended()) {
      ctx.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(body.encode());
    }
  }
}
