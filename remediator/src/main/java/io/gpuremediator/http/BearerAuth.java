package io.gpuremediator.http;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/**
 * Requires {@code Authorization: Bearer <token>}. The comparison runs in constant time over digests,
 * so neither the token's content nor its length leaks through timing. With no token configured
 * ({@code insecure_no_auth: true}) every request passes. A {@link PlatformHandler} so that Vert.x Web
 * lets it run before the body handler: nothing of an unauthenticated body is read.
 */
public final class BearerAuth implements PlatformHandler {
  private static final String PREFIX = "Bearer ";
  private final Optional<byte[]> expectedDigest;

  /** Creates the check; empty means auth is explicitly disabled. */
  public BearerAuth(Optional<String> token) {
    this.expectedDigest = token.map(BearerAuth::digest);
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (expectedDigest.isEmpty()) {
      ctx.next();
      return;
    }
    String header = ctx.request().getHeader("Authorization");
    boolean ok = header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
        && MessageDigest.isEqual(expectedDigest.get(), digest(header.substring(PREFIX.length()).strip()));
    if (ok) {
      ctx.next();
    } else {
      ctx.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer")
          .putHeader("Content-Type", "application/json")
          .end(new JsonObject().put("error", header == null ? "missing bearer token" : "wrong bearer token").encode());
    }
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
