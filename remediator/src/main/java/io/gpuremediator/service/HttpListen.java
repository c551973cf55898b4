package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.http.ConnectionLimit;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import java.util.concurrent.TimeUnit;

/** How the service's ports listen: the server options from the config, and a listen that says why it could not. */
final class HttpListen {
  private static final int STALL_SECONDS = 600;

  private HttpListen() {}

  /**
   * HTTP/1.1 only (Alertmanager, probes and Prometheus speak it): with h2c on, a connection that sends nothing is not a
   * connection to Vert.x yet, and would escape max_connections. idle_timeout closes a connection between requests
   * ({@link ConnectionLimit}); Vert.x's own only one that moves no byte for {@value #STALL_SECONDS} s (a stalled answer).
   */
  static HttpServerOptions options(RemediatorConfig config) {
    RemediatorConfig.Limits limits = config.limits();
    HttpServerOptions options = new HttpServerOptions().setHost(config.listenHost()).setPort(config.listenPort())
        .setHttp2ClearTextEnabled(false)
        .setIdleTimeout((int) Math.max(STALL_SECONDS, limits.idleTimeout().toSeconds())).setIdleTimeoutUnit(TimeUnit.SECONDS);
    config.tls().ifPresent(tls -> options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
        .setCertPath(tls.certFile().toString()).setKeyPath(tls.keyFile().toString())));
    return options;
  }

  /** Listens with {@code options}, every connection counted against max_connections. */
  static HttpServer listen(Vertx vertx, String what, HttpServerOptions options, ConnectionLimit connections,
      Router router) throws StartupException {
    try {
      return vertx.createHttpServer(options).connectionHandler(connections::opened).requestHandler(router).listen()
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new StartupException("cannot listen on " + what + options.getHost() + ":" + options.getPort() + ": "
          + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
    }
  }
}
