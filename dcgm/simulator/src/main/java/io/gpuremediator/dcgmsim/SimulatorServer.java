package io.gpuremediator.dcgmsim;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The simulator's HTTP endpoints. Each exporter has its own path per node, so that Prometheus scrapes
 * one target per node and an exporter that is down is a target that is down:
 * {@code /metrics/dcgm/<node>}, {@code /metrics/node-exporter/<node>} (InfiniBand ports, EDAC), {@code /metrics/npd/<node>}, {@code /metrics/neuron-monitor/<node>},
 * {@code /metrics/kube-state-metrics}. Faults: {@code GET/POST/DELETE /faults}; nodes: {@code GET /nodes}.
 */
final class SimulatorServer {
  private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

  private final SimFleet fleet;
  private final MetricsText text;
  private final Prerendered rendered;

  SimulatorServer(SimFleet fleet, MetricsText text) {
    this.fleet = fleet;
    this.text = text;
    this.rendered = new Prerendered(fleet);
  }

  HttpServer listen(Vertx vertx, String host, int port) throws Exception {
    Router router = Router.router(vertx);
    router.get("/metrics/dcgm/:node").handler(ctx -> {
      String node = ctx.pathParam("node");
      if (!fleet.gpuNodes().contains(node)) {
        ctx.response().setStatusCode(404).end("no simulated GPU node " + node + "\n");
      } else if (fleet.fault(node, -1, FaultKind.EXPORTER_DOWN).isPresent()) {
        ctx.response().setStatusCode(503).end("exporter down (simulated)\n");
      } else {
        metrics(ctx, rendered.get("dcgm/" + node, () -> text.dcgm(node)));
      }
    });
    router.get("/metrics/node-exporter/:node").handler(ctx -> {
      String node = ctx.pathParam("node");
      if (!fleet.gpuNodes().contains(node)) {
        ctx.response().setStatusCode(404).end("no simulated GPU node " + node + "\n");
      } else {
        metrics(ctx, rendered.get("node-exporter/" + node, () -> text.nodeExporter(node)));
      }
    });
    router.get("/metrics/npd/:node").handler(ctx -> trnOnly(ctx, "npd/", text::npd));
    router.get("/metrics/neuron-monitor/:node").handler(ctx -> trnOnly(ctx, "neuron-monitor/", text::neuronMonitor));
    router.get("/metrics/kube-state-metrics").handler(ctx -> metrics(ctx, rendered.get("kube-state-metrics", text::kubeStateMetrics)));
    router.get("/nodes").handler(this::nodes);
    router.get("/faults").handler(this::listFaults);
    router.post("/faults").handler(BodyHandler.create(false).setBodyLimit(64 * 1024)).handler(this::inject);
    router.delete("/faults").handler(this::clear);
    return vertx.createHttpServer().requestHandler(router).listen(port, host).toCompletionStage().toCompletableFuture().get();
  }

  private void trnOnly(RoutingContext ctx, String exporter, UnaryOperator<String> body) {
    String node = ctx.pathParam("node");
    if (!fleet.trnNodes().contains(node)) {
      ctx.response().setStatusCode(404).end("no simulated Trainium node " + node + "\n");
    } else if (fleet.fault(node, -1, FaultKind.EXPORTER_DOWN).isPresent()) {
      ctx.response().setStatusCode(503).end("exporter down (simulated)\n");
    } else {
      metrics(ctx, rendered.get(exporter + node, () -> body.apply(node)));
    }
  }

  private static void metrics(RoutingContext ctx, byte[] body) {
    ctx.response().putHeader("Content-Type", TEXT_FORMAT).end(Buffer.buffer(body));
  }

  private void nodes(RoutingContext ctx) {
    JsonArray out = new JsonArray();
    fleet.gpuNodes().forEach(n -> out.add(new JsonObject().put("name", n).put("kind", "gpu").put("internal_ip", fleet.internalIp(n))
        .put("gpus", SimFleet.GPUS_PER_NODE)));
    fleet.trnNodes().forEach(n -> out.add(new JsonObject().put("name", n).put("kind", "trainium").put("internal_ip", fleet.internalIp(n))));
    json(ctx, 200, new JsonObject().put("nodes", out));
  }

  private void listFaults(RoutingContext ctx) {
    JsonArray out = new JsonArray();
    fleet.faults().forEach(f -> out.add(new JsonObject().put("node", f.node()).put("gpu", f.gpu() < 0 ? null : f.gpu())
        .put("kind", f.kind().code()).put("value", f.value())));
    json(ctx, 200, new JsonObject().put("faults", out));
  }

  private void inject(RoutingContext ctx) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      json(ctx, 400, error("body: not a JSON object"));
      return;
    }
    if (body == null || !(body.getValue("node") instanceof String node) || !(body.getValue("kind") instanceof String kindName)) {
      json(ctx, 400, error("node and kind are required strings"));
      return;
    }
    Optional<FaultKind> kind = FaultKind.fromCode(kindName);
    if (kind.isEmpty()) {
      json(ctx, 400, error("kind: one of " + Arrays.stream(FaultKind.values()).map(FaultKind::code).collect(Collectors.joining(", "))));
      return;
    }
    Object gpu = body.getValue("gpu");
    if (gpu != null && !(gpu instanceof Integer)) {
      json(ctx, 400, error("gpu: an integer"));
      return;
    }
    String value = body.getValue("value") != null ? String.valueOf(body.getValue("value"))
        : switch (kind.get()) {
          case XID -> "79";
          case IB_DOWN -> SimFleet.IB_DEVICES.get(0);
          case RECOVERY_ACTION -> "1";
          case FABRIC -> "route_unhealthy";
          default -> "";
        };
    SimFleet.Fault fault = new SimFleet.Fault(node, gpu == null ? -1 : (Integer) gpu, kind.get(), value);
    Optional<String> refused = fleet.inject(fault);
    if (refused.isPresent()) {
      json(ctx, 400, error(refused.get()));
      return;
    }
    json(ctx, 200, new JsonObject().put("injected", new JsonObject().put("node", node).put("gpu", gpu)
        .put("kind", kind.get().code()).put("value", value)));
  }

  private void clear(RoutingContext ctx) {
    String kindName = ctx.request().getParam("kind");
    Optional<FaultKind> kind = kindName == null ? Optional.empty() : FaultKind.fromCode(kindName);
    if (kindName != null && kind.isEmpty()) {
      json(ctx, 400, error("kind: unknown fault kind " + kindName));
      return;
    }
    Integer gpu;
    try {
      gpu = ctx.request().getParam("gpu") == null ? null : Integer.valueOf(ctx.request().getParam("gpu"));
    } catch (NumberFormatException e) {
      json(ctx, 400, error("gpu: an integer"));
      return;
    }
    json(ctx, 200, new JsonObject().put("cleared", fleet.clear(ctx.request().getParam("node"), gpu, kind.orElse(null))));
  }

  private static JsonObject error(String message) {
    return new JsonObject().put("error", message);
  }

  private static void json(RoutingContext ctx, int code, JsonObject body) {
    ctx.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(body.encode());
  }
}
