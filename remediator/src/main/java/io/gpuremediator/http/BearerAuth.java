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
 * ({@code insecure_no_auth: true}) every request passes. The {@linkplain #readOnly read-only} variant also
 * accepts the read token ({@code auth.read_token_file}); on any other route that token is answered 403. A
 * {@link PlatformHandler} so that Vert.x Web lets it run before the body handler: nothing of an
 * unauthenticated body is read.
 */
public final class BearerAuth implements PlatformHandler {
  private static final String PREFIX = "Bearer ";
  private final Optional<byte[]> expectedDigest;
  private final Optional<byte[]> readDigest;
  private final boolean acceptsReadToken;

  /**
   * Creates the check of the full token (empty: auth explicitly disabled), which knows the read token only to
   * say that it cannot change anything.
   */
  public BearerAuth(Optional<String> token, Optional<String> readToken) {
    this(token.map(BearerAuth::digest), readToken.map(BearerAuth::digest), false);
  }

  private BearerAuth(Optional<byte[]> expected, Optional<byte[]> read, boolean acceptsReadToken) {
    this.expectedDigest = expected;
    this.readDigest = read;
    this.acceptsReadToken = acceptsReadToken;
  }

  /** The check for routes that only read: the full token or the read token. */
  public BearerAuth readOnly() {
    return new BearerAuth(expectedDigest, readDigest, true);
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (expectedDigest.isEmpty()) {
      ctx.next();
      return;
    }
    String header = ctx.request().getHeader("Authorization");
    byte[] given = header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
        ? digest(header.substring(PREFIX.length()).strip()) : null;
    boolean full = given != null && MessageDigest.isEqual(expectedDigest.get(), given);
    boolean read = given != null && readDigest.isPresent() && MessageDigest.isEqual(readDigest.get(), given);
    if (full || (read && acceptsReadToken)) {
      ctx.next();
    } else if (read) {
      ctx.response().setStatusCode(403).putHeader("Content-Type", "application/json")
          .end(new JsonObject().put("error", "the read-only token cannot change anything").encode());
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
