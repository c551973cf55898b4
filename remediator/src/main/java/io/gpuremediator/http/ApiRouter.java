package io.gpuremediator.http;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.DecisionLog;
import io.gpuremediator.episode.HumanControls;
import io.gpuremediator.episode.SparesNow;
import io.gpuremediator.maintenance.MaintenanceWatch;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.sweep.SweepStatus;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.PlatformHandler;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the service's routes. */
public final class ApiRouter {
  private static final Logger LOGGER = LoggerFactory.getLogger(ApiRouter.class);
  private static final int DEFAULT_DECISIONS = 100;

  private ApiRouter() {}

  /** What the routes need. */
  public record Routes(
      TokenRoles auth,
      long maxBodyBytes,
      Readiness readiness,
      WebhookHandler webhook,
      DecisionLog decisions,
      Supplier<List<NodeInfo>> nodes,
      Supplier<List<NodeInfo>> selectedNodes,
      CollectorRegistry registry,
      FleetGate gate,
      WorkerExecutor workers,
      Clock clock,
      ConnectionLimit connections,
      ClientRate clientRate,
      WebhookAdmission admission,
      HumanControls controls,
      HostCheck hosts,
      Supplier<Optional<SparesNow>> spares,
      Supplier<Optional<List<MaintenanceWatch.Upcoming>>> maintenance,
      Supplier<List<SweepStatus>> sweeps) {}

  /** Creates the router. */
  public static Router create(Vertx vertx, Routes r) {
    Router router = Router.router(vertx);
    router.route().handler((PlatformHandler) r.connections()::busy);
    router.route().handler(r.hosts());
    vertx.setPeriodic(1000, id -> r.connections().closeIdle());
    // Probes and /metrics are left out: the kubelet and Prometheus are no flood, and must never be refused.
    router.route("/api/*").handler(r.clientRate());
    // Order matters: nothing of an unauthenticated, mistyped or unwanted body is read.
    router.post("/api/v1/alerts")
        .handler(r.auth().require(TokenRoles.Role.WEBHOOK))
        .handler((PlatformHandler) ApiRouter::requireJson)
        .handler((PlatformHandler) ctx -> ifReady(ctx, r.readiness()))
        .handler(r.admission())
        .handler(BodyHandler.create(false).setBodyLimit(r.maxBodyBytes()).setHandleFileUploads(false))
        .handler(WebhookAdmission::bodyRead)
        .handler(r.webhook());
    SafetyHandlers safety = new SafetyHandlers(r.gate(), r.workers(), r.clock());
    readRoutes(router, r, r.auth().require(TokenRoles.Role.READ), safety);
    PlatformHandler operator = r.auth().require(TokenRoles.Role.OPERATOR);
    PlatformHandler ready = ctx -> ifReady(ctx, r.readiness());
    BodyHandler smallBody = BodyHandler.create(false).setBodyLimit(64 * 1024).setHandleFileUploads(false);
    router.post("/api/v1/pause").handler(operator).handler((PlatformHandler) ApiRouter::requireJson).handler(ready)
        .handler(smallBody).handler(safety::pause);
    router.delete("/api/v1/pause").handler(operator).handler(ready).handler(smallBody).handler(safety::resume);
    // Every POST that changes something takes JSON only: a cross-site form (text/plain, no preflight) never reaches it,
    // even under insecure_no_auth.
    router.post("/api/v1/breaker/reset").handler(operator).handler((PlatformHandler) ApiRouter::requireJson).handler(ready)
        .handler(smallBody).handler(safety::resetBreaker);
    // A label's prefix has a slash (nvidia.com/gpu.clique): everything up to the value is the label.
    router.postWithRegex("/api/v1/safety/domains/(?<label>.+)/(?<value>[^/]+)/reset").handler(operator)
        .handler((PlatformHandler) ApiRouter::requireJson).handler(ready)
        .handler(smallBody).handler(safety::resetIncident);
    NodeControlHandlers nodeControls = new NodeControlHandlers(r.controls(), r.workers());
    router.post("/api/v1/nodes/:node/release").handler(operator).handler((PlatformHandler) ApiRouter::requireJson)
        .handler(ready).handler(smallBody).handler(nodeControls::release);
    router.post("/api/v1/nodes/:node/retry").handler(operator).handler((PlatformHandler) ApiRouter::requireJson)
        .handler(ready).handler(smallBody).handler(nodeControls::retry);
    probes(router, r);
    router.route().failureHandler(ApiRouter::failure);
    return router;
  }

  /**
   * The router of {@code status_listen}: the status page and the API's reads, without a token (an address only
   * operators reach, or a port-forward), and nothing that changes anything.
   */
  public static Router statusOnly(Vertx vertx, Routes r) {
    Router router = Router.router(vertx);
    router.route().handler((PlatformHandler) r.connections()::busy);
    router.route().handler(r.hosts());
    router.route("/api/*").handler(r.clientRate());
    readRoutes(router, r, ctx -> ctx.next(), new SafetyHandlers(r.gate(), r.workers(), r.clock()));
    probes(router, r);
    router.route().failureHandler(ApiRouter::failure);
    return router;
  }

  /** The status page and what it reads; none of it takes the safety gate's lock. */
  private static void readRoutes(Router router, Routes r, PlatformHandler auth, SafetyHandlers safety) {
    StatusPage.routes(router);
    router.get("/api/v1/decisions").handler(auth).handler(ctx -> decisions(ctx, r.decisions()));
    router.get("/api/v1/nodes").handler(auth).handler(ctx -> JsonAnswers.json(ctx, 200, NodesJson.of(r.nodes().get())));
    router.get("/api/v1/safety").handler(auth).handler(safety::safety);
    router.get("/api/v1/fleet").handler(auth).handler(ctx -> fleet(ctx, r));
  }

  /** Every selected node (tens of thousands on a large fleet), sorted and grouped on a worker, off the event loop. */
  private static void fleet(RoutingContext ctx, Routes r) {
    Optional<String> label = Optional.ofNullable(ctx.request().getParam("group_by")).filter(l -> !l.isEmpty());
    Optional<String> invalid = label.flatMap(FleetJson::invalidLabel);
    if (invalid.isPresent()) {
      JsonAnswers.json(ctx, 400, JsonAnswers.error(invalid.get()));
      return;
    }
    r.workers().executeBlocking(() -> SweepsJson.with(MaintenanceJson.with(FleetJson.of(r.selectedNodes().get(), label,
        r.spares().get()), r.maintenance().get()), r.sweeps().get()), false).onComplete(done -> {
      if (done.succeeded()) {
        JsonAnswers.json(ctx, 200, done.result());
      } else {
        ctx.fail(done.cause());
      }
    });
  }

  private static void probes(Router router, Routes r) {
    router.get("/metrics").handler(ctx -> metrics(ctx, r.registry()));
    router.get("/healthz").handler(ctx -> ctx.response().putHeader("Content-Type", "text/plain").end("ok\n"));
    router.get("/readyz").handler(ctx -> {
      Optional<String> why = r.readiness().notReadyBecause();
      ctx.response().setStatusCode(why.isPresent() ? 503 : 200).putHeader("Content-Type", "text/plain")
          .end(why.map(w -> "not ready: " + w + "\n").orElse("ready\n"));
    });
  }

  private static void requireJson(RoutingContext ctx) {
    String type = ctx.request().getHeader("Content-Type");
    String mime = type == null ? "" : type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    if (!mime.equals("application/json")) {
      JsonAnswers.json(ctx, 415, JsonAnswers.error("Content-Type must be application/json, not \"" + (type == null ? "" : type) + "\""));
      return;
    }
    ctx.next();
  }

  private static void ifReady(RoutingContext ctx, Readiness readiness) {
    Optional<String> why = readiness.notReadyBecause();
    if (why.isPresent()) {
      JsonAnswers.json(ctx, 503, JsonAnswers.error("not ready: " + why.get()));
      return;
    }
    ctx.next();
  }

  private static void decisions(RoutingContext ctx, DecisionLog log) {
    String raw = ctx.request().getParam("limit");
    int limit = DEFAULT_DECISIONS;
    if (raw != null) {
      try {
        limit = Integer.parseInt(raw);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > log.capacity()) {
        JsonAnswers.json(ctx, 400, JsonAnswers.error("limit must be an integer from 1 to " + log.capacity()));
        return;
      }
    }
    JsonArray out = new JsonArray();
    for (Decision d : log.recent(limit)) {
      out.add(DecisionJson.of(d));
    }
    JsonAnswers.json(ctx, 200, new JsonObject().put("decisions", out));
  }

  private static void metrics(RoutingContext ctx, CollectorRegistry registry) {
    StringWriter out = new StringWriter();
    try {
      TextFormat.write004(out, registry.metricFamilySamples());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ctx.response().putHeader("Content-Type", TextFormat.CONTENT_TYPE_004).end(out.toString());
  }

  private static void failure(RoutingContext ctx) {
    int code = ctx.statusCode();
    if (code == 413) {
      JsonAnswers.json(ctx, 413, JsonAnswers.error("body larger than max_body_bytes"));
    } else if (code >= 400 && code < 500) {
      JsonAnswers.json(ctx, code, JsonAnswers.error("bad request"));
    } else {
      LOGGER.error("unhandled failure on {} {}", ctx.request().method(), ctx.request().path(), ctx.failure());
      JsonAnswers.json(ctx, 500, JsonAnswers.error("internal error"));
    }
  }
}
