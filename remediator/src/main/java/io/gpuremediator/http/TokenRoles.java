package io.gpuremediator.http;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who may do what: {@code Authorization: Bearer <token>} checked against one token a role. The webhook's token (the one
 * Alertmanager holds) posts alerts and nothing else; the operator's pauses, resumes, resets the breaker and domains,
 * releases and retries, and reads; the read token reads only. A known token outside its role is answered 403 (naming
 * the role it has), an unknown one 401. Comparisons run in constant time over digests, so neither a token's content
 * nor its length leaks through timing. With no tokens ({@code insecure_no_auth: true}) every request passes. A {@link
 * PlatformHandler}, so that Vert.x Web lets it run before the body handler: nothing of an unauthenticated body is read.
 */
public final class TokenRoles {
  private static final String PREFIX = "Bearer ";

  /** The roles, each with its token. */
  public enum Role {
    /** {@code POST /api/v1/alerts} only ({@code auth.webhook_token_file}). */
    WEBHOOK("the webhook token posts alerts only"),
    /** Every change a human makes, and every read ({@code auth.operator_token_file}). */
    OPERATOR("the operator token does not post alerts (that is the webhook token's)"),
    /** GETs only ({@code auth.read_token_file}). */
    READ("the read-only token cannot change anything");

    private final String outside;

    Role(String outside) {
      this.outside = outside;
    }
  }

  private final Optional<Map<Role, byte[]>> digests;

  /**
   * The check of these tokens, by role; empty: auth explicitly disabled. A role without a token (no read token) is
   * never granted.
   */
  public TokenRoles(Optional<Map<Role, String>> tokens) {
    this.digests = tokens.map(t -> {
      Map<Role, byte[]> out = new EnumMap<>(Role.class);
      t.forEach((role, token) -> out.put(role, digest(token)));
      return out;
    });
  }

  /** The check of a route that {@code role} may call (reads: the read or the operator token). */
  public PlatformHandler require(Role role) {
    return ctx -> check(ctx, role);
  }

  private void check(RoutingContext ctx, Role needed) {
    if (digests.isEmpty()) {
      ctx.next();
      return;
    }
    String header = ctx.request().getHeader("Authorization");
    byte[] given = header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
        ? digest(header.substring(PREFIX.length()).strip()) : null;
    Optional<Role> held = Optional.empty();
    for (Map.Entry<Role, byte[]> e : digests.get().entrySet()) {
      if (given != null && MessageDigest.isEqual(e.getValue(), given)) {
        held = Optional.of(e.getKey());
      }
    }
    if (held.isPresent() && (held.get() == needed || needed == Role.READ && held.get() == Role.OPERATOR)) {
      ctx.next();
    } else if (held.isPresent()) {
      ctx.response().setStatusCode(403).putHeader("Content-Type", "application/json")
          .end(new JsonObject().put("error", held.get().outside).encode());
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
