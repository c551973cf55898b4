package io.gpuremediator.http;

import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.FleetStore.FleetStoreException;
import io.gpuremediator.safety.SafetySnapshot;
import io.gpuremediator.value.Durations;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The operator's safety API: budgets and breaker ({@code GET /api/v1/safety}), pause and resume
 * ({@code POST/DELETE /api/v1/pause}), the breaker reset ({@code POST /api/v1/breaker/reset}) and a failure domain's
 * incident reset ({@code POST /api/v1/safety/domains/{label}/{value}/reset}).
 * The gate's calls block (they store the fleet state), so they run on the worker pool.
 */
final class SafetyHandlers {
  /** The longest pause accepted: a forgotten pause must not switch remediation off for good. */
  static final Duration MAX_PAUSE = Duration.ofDays(30);

  private final FleetGate gate;
  private final WorkerExecutor workers;
  private final Clock clock;

  SafetyHandlers(FleetGate gate, WorkerExecutor workers, Clock clock) {
    this.gate = gate;
    this.workers = workers;
    this.clock = clock;
  }

  /** Each failure domain's budget per value: its selected nodes, those unavailable, and what it allows. */
  private static JsonArray limits(SafetySnapshot s) {
    JsonArray out = new JsonArray();
    s.limits().forEach(u -> out.add(new JsonObject().put("limit", u.limit()).put("used", u.used()).put("allowed", u.allowed())
        .put("left", u.left()).put("detail", u.detail())));
    return out;
  }

  /** The failure domains' open incidents: each holds until a human resets it. */
  private static JsonArray incidents(SafetySnapshot s) {
    JsonArray out = new JsonArray();
    s.incidents().forEach(i -> out.add(new JsonObject().put("label", i.label()).put("value", i.value())
        .put("opened_at", i.openedAt().toString()).put("nodes", new JsonArray(new ArrayList<>(i.nodes())))
        .put("reason", i.reason()).put("reset", "POST /api/v1/safety/domains/" + i.label() + "/" + i.value() + "/reset")));
    return out;
  }

  private static JsonArray domains(SafetySnapshot s) {
    JsonArray out = new JsonArray();
    s.domains().forEach(u -> out.add(new JsonObject().put("label", u.label()).put("value", u.value())
        .put("selected_nodes", u.selected()).put("unavailable", u.unavailable()).put("budget", u.allowed())
        .put("left", Math.max(0, u.allowed() - u.unavailable()))));
    return out;
  }

  /** Takes no lock: the snapshot is read from published state, so the status page never slows a decision. */
  void safety(RoutingContext ctx) {
    JsonAnswers.json(ctx, 200, json(gate.snapshot()));
  }

  void pause(RoutingContext ctx) {
    Optional<JsonObject> read = OperatorRequests.body(ctx, "body: a JSON object with reason and until (or duration) is required");
    Optional<String> reason = read.flatMap(b -> OperatorRequests.reason(ctx, b));
    if (reason.isEmpty()) {
      return;
    }
    JsonObject body = read.get();
    Instant now = clock.instant();
    Instant until;
    try {
      until = until(body, now);
    } catch (IllegalArgumentException e) {
      JsonAnswers.json(ctx, 400, JsonAnswers.error(e.getMessage()));
      return;
    }
    String by = "POST /api/v1/pause from " + ctx.request().remoteAddress().hostAddress();
    run(ctx, () -> {
      gate.pause(reason.get(), until, by);
      return json(gate.snapshot());
    });
  }

  private static Instant until(JsonObject body, Instant now) {
    Object until = body.getValue("until");
    Object duration = body.getValue("duration");
    if ((until == null) == (duration == null)) {
      throw new IllegalArgumentException("give exactly one of until (RFC 3339) or duration (like 2h)");
    }
    Instant end;
    if (until != null) {
      try {
        end = OffsetDateTime.parse(String.valueOf(until)).toInstant();
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("until: \"" + until + "\" is not an RFC 3339 time");
      }
    } else {
      var parsed = Durations.parse(String.valueOf(duration));
      if (parsed.error() != null) {
        throw new IllegalArgumentException("duration: " + parsed.error());
      }
      end = now.plus(parsed.value());
    }
    if (!end.isAfter(now)) {
      throw new IllegalArgumentException("until: the pause must end in the future");
    }
    if (end.isAfter(now.plus(MAX_PAUSE))) {
      throw new IllegalArgumentException("until: a pause lasts at most " + Durations.format(MAX_PAUSE));
    }
    return end;
  }

  /** Ends a pause; an optional JSON body's {@code reason} says why (the status page always asks for one). */
  void resume(RoutingContext ctx) {
    Optional<OperatorRequests.OptionalReason> read = OperatorRequests.optionalReason(ctx);
    if (read.isPresent()) {
      run(ctx, () -> {
        gate.resume(read.get().reason());
        return json(gate.snapshot());
      });
    }
  }

  /** Closes the breaker; an optional JSON body's {@code reason} goes with who reset it into the Event. */
  void resetBreaker(RoutingContext ctx) {
    Optional<OperatorRequests.OptionalReason> read = OperatorRequests.optionalReason(ctx);
    if (read.isPresent()) {
      String who = "POST /api/v1/breaker/reset" + read.get().reason().map(r -> " (" + r + ")").orElse("");
      run(ctx, () -> {
        gate.resetBreaker(who);
        return json(gate.snapshot());
      });
    }
  }

  /**
   * Resets a failure domain's incident ({@code POST /api/v1/safety/domains/{label}/{value}/reset}, the label's slash
   * as it is); an optional JSON body's {@code reason} goes with who reset it into the Event. 404 when none is open there.
   */
  void resetIncident(RoutingContext ctx) {
    String label = ctx.pathParam("label");
    String value = ctx.pathParam("value");
    if (gate.snapshot().incidents().stream().noneMatch(i -> i.label().equals(label) && i.value().equals(value))) {
      JsonAnswers.json(ctx, 404, JsonAnswers.error("no open incident in " + label + "=" + value));
      return;
    }
    Optional<OperatorRequests.OptionalReason> read = OperatorRequests.optionalReason(ctx);
    if (read.isPresent()) {
      String who = "POST /api/v1/safety/domains/" + label + "/" + value + "/reset"
          + read.get().reason().map(r -> " (" + r + ")").orElse("");
      run(ctx, () -> {
        gate.resetIncident(label, value, who);
        return json(gate.snapshot());
      });
    }
  }

  /** Runs blocking gate work on the workers; a store failure is a 503 (try again), nothing half-done. */
  private void run(RoutingContext ctx, Callable<JsonObject> work) {
    workers.executeBlocking(work, false).onComplete(done -> {
      if (done.succeeded()) {
        JsonAnswers.json(ctx, 200, done.result());
      } else if (done.cause() instanceof FleetStoreException e) {
        JsonAnswers.json(ctx, 503, JsonAnswers.error("fleet safety state unavailable: " + e.getMessage()));
      } else {
        ctx.fail(done.cause());
      }
    });
  }

  static JsonObject json(SafetySnapshot s) {
    JsonObject breaker = new JsonObject().put("state", s.breaker().open() ? "open" : "closed")
        .put("nodes_in_window", s.breakerNodesInWindow()).put("threshold", s.breakerThreshold())
        .put("window", Durations.format(s.breakerWindow()))
        .put("auto_reset_after", s.breakerAutoResetAfter().map(Durations::format).orElse(null));
    if (s.breaker().open()) {
      breaker.put("opened_at", s.breaker().openedAt().toString()).put("reason", s.breaker().reason());
    }
    JsonObject playbooks = new JsonObject();
    s.playbookStarts().forEach(playbooks::put);
    return new JsonObject()
        .put("loaded", s.loaded())
        .put("max_unavailable", new JsonObject().put("selected_nodes", s.selectedNodes())
            .put("unavailable", s.unavailableNodes()).put("budget", s.maxUnavailable())
            .put("left", Math.max(0, s.maxUnavailable() - s.unavailableNodes())))
        .put("rate_limit", new JsonObject().put("limit", s.rateLimit()).put("used", s.rateUsed())
            .put("left", Math.max(0, Integer.parseInt(s.rateLimit().split("/")[0]) - s.rateUsed()))
            .put("playbook_starts", playbooks))
        .put("domains", domains(s))
        .put("limits", limits(s))
        .put("incidents", incidents(s))
        .put("breaker", breaker)
        .put("warnings", new JsonArray(new ArrayList<>(s.warnings())))
        .put("pause", s.pause().map(p -> new JsonObject().put("paused", true).put("reason", p.reason())
            .put("until", p.until().toString()).put("since", p.since().toString()).put("by", p.by()))
            .orElse(new JsonObject().put("paused", false)));
  }
}
