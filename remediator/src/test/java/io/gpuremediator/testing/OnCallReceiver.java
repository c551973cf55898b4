package io.gpuremediator.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A Slack-compatible receiver on 127.0.0.1, as {@code safety.page}'s receiver in a test: every message's text, in order.
 * Its URL goes in a file, as a notify receiver's {@code url_file} reads it.
 */
public final class OnCallReceiver implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final List<String> received = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  /** Starts, and writes its URL into {@code urlFile}. */
  public OnCallReceiver(Path urlFile) throws Exception {
    server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
      received.add(b.toJsonObject().getString("text"));
      req.response().end("ok");
    })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Files.writeString(urlFile, "http://127.0.0.1:" + server.actualPort() + "/services/T0/B0/x\n");
  }

  /** Every message's text received so far, oldest first. */
  public List<String> received() {
    return received;
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
