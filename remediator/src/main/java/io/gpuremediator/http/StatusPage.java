package io.gpuremediator.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The status page ({@code GET /}): one HTML page, its script and its style, served from the jar with a strict
 * Content-Security-Policy (nothing but this origin; no inline script or style; no CDN, no font: clusters are
 * often air-gapped). The page reads the same JSON API as everyone else, so there is no second source of truth.
 */
final class StatusPage {
  /** Everything from this origin only, no inline code, no framing, no form posts elsewhere. */
  static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
      + "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  private static final Buffer HTML = resource("index.html");
  private static final Buffer SCRIPT = resource("status.js");
  private static final Buffer STYLE = resource("status.css");

  private StatusPage() {}

  static void routes(Router router) {
    router.get("/").handler(ctx -> serve(ctx, HTML, "text/html; charset=utf-8"));
    router.get("/status/status.js").handler(ctx -> serve(ctx, SCRIPT, "text/javascript; charset=utf-8"));
    router.get("/status/status.css").handler(ctx -> serve(ctx, STYLE, "text/css; charset=utf-8"));
  }

  private static void serve(RoutingContext ctx, Buffer body, String type) {
    ctx.response().putHeader("Content-Type", type).putHeader("Content-Security-Policy", CSP)
        .putHeader("X-Content-Type-Options", "nosniff").putHeader("Referrer-Policy", "no-referrer")
        .putHeader("Cache-Control", "no-store").end(body);
  }

  private static Buffer resource(String name) {
    try (InputStream in = StatusPage.class.getResourceAsStream("/status/" + name)) {
      if (in == null) {
        throw new IllegalStateException("status page resource missing from the jar: " + name);
      }
      return Buffer.buffer(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
