package io.gpuremediator.http;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;

/** The small JSON bodies of an operator's requests (pause, resume, breaker reset, release, retry): each problem a 400. */
final class OperatorRequests {
  /** The longest reason kept: it goes into decisions, Events and the fleet state. */
  static final int MAX_REASON = 256;

  private OperatorRequests() {}

  /**
   * The body as a JSON object; an empty object when there is none and {@code whenMissing} is null. Otherwise
   * answers 400 (not an object, or missing with {@code whenMissing} as the message) and returns empty.
   */
  static Optional<JsonObject> body(RoutingContext ctx, String whenMissing) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      JsonAnswers.json(ctx, 400, JsonAnswers.error("body: not a JSON object"));
      return Optional.empty();
    }
    if (body == null && whenMissing != null) {
      JsonAnswers.json(ctx, 400, JsonAnswers.error(whenMissing));
      return Optional.empty();
    }
    return Optional.of(body == null ? new JsonObject() : body);
  }

  /** The body's required {@code reason}, stripped; answers 400 and returns empty when it is missing or too long. */
  static Optional<String> reason(RoutingContext ctx, JsonObject body) {
    Object reason = body.getValue("reason");
    if (!(reason instanceof String r) || r.isBlank() || r.length() > MAX_REASON) {
      JsonAnswers.json(ctx, 400, JsonAnswers.error("reason: required, a string of 1 to " + MAX_REASON + " characters"));
      return Optional.empty();
    }
    return Optional.of(r.strip());
  }

  /** What a body whose {@code reason} is optional said: the reason, when it gave one. */
  record OptionalReason(Optional<String> reason) {}

  /**
   * The body's optional {@code reason}: no body, or none in it, is fine; answers 400 and returns empty when the
   * body is not a JSON object or the reason given is not a string of 1 to {@link #MAX_REASON} characters.
   */
  static Optional<OptionalReason> optionalReason(RoutingContext ctx) {
    Optional<JsonObject> body = body(ctx, null);
    if (body.isEmpty()) {
      return Optional.empty();
    }
    if (!body.get().containsKey("reason")) {
      return Optional.of(new OptionalReason(Optional.empty()));
    }
    return reason(ctx, body.get()).map(r -> new OptionalReason(Optional.of(r)));
  }
}
