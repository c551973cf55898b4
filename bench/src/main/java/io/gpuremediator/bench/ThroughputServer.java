package io.gpuremediator.bench;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.RemediatorService;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The server side of the throughput benchmark, run in its own JVM pinned to one core: either a bare
 * Vert.x endpoint that only parses the webhook JSON (the ceiling), or the remediator in global dry-run
 * against the mock API server.
 */
public final class ThroughputServer {
  private ThroughputServer() {}

  /** {@code bare|remediator PORT_FILE PLAYBOOKS_DIR}. */
  public static void main(String[] args) throws Exception {
    MockApiServer.quiet();
    Path portFile = Path.of(args[1]);
    int port = args[0].equals("bare") ? bare() : remediator(Path.of(args[2]), portFile.getParent());
    Files.writeString(portFile, Integer.toString(port));
  }

  /** A bare Vert.x endpoint on one event loop that only parses the webhook JSON and counts its alerts; its port. */
  static int bare() throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Router router = Router.router(vertx);
    router.post("/api/v1/alerts").handler(BodyHandler.create(false).setBodyLimit(4 << 20)).handler(ctx -> {
      JsonObject body = ctx.body().asJsonObject();
      int alerts = body.getJsonArray("alerts").size();
      ctx.response().putHeader("Content-Type", "application/json").end(new JsonObject().put("alerts", alerts).encode());
    });
    return vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get().actualPort();
  }

  private static int remediator(Path playbooks, Path dir) throws Exception {
    MockApiServer api = new MockApiServer(200);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.client().getConfiguration())
        .withRequestRetryBackoffLimit(0).build()).build();
    Path config = dir.resolve("throughput-remediator.yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\ndry_run: true\nplaybooks: ["
        + playbooks.toAbsolutePath() + "]\nsafety: " + Bench.WIDE_LIMITS + "\n" + Bench.LOAD_LIMITS);
    RemediatorService service = new RemediatorService(ConfigLoader.load(config).config().orElseThrow(), KubeApi.of(client),
        Clock.systemUTC());
    return Bench.awaitReady(service.start());
  }
}
