package io.gpuremediator.http;

import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Answers only requests addressed to this service: their {@code Host} is an IP address (probes, Prometheus, a
 * port-forward), {@code localhost}, a cluster name (no dot; under {@code .svc} or {@code .svc.cluster.local}: what
 * Alertmanager and the shipped routes use), or one of {@code http.allowed_hosts}. A page a browser loaded from another
 * name that now resolves here (DNS rebinding) gets 421 and reaches no handler.
 */
public final class HostCheck implements PlatformHandler {
  private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
  private static final List<String> CLUSTER_SUFFIXES = List.of(".svc", ".svc.cluster.local");

  private final List<String> allowed;

  /** Allows the defaults and {@code allowed} (exact names, or {@code *.suffix}). */
  public HostCheck(List<String> allowed) {
    this.allowed = List.copyOf(allowed);
  }

  @Override
  public void handle(RoutingContext ctx) {
    HostAndPort authority = ctx.request().authority();
    String host = authority == null ? "" : authority.host();
    if (allows(host)) {
      ctx.next();
      return;
    }
    ctx.response().putHeader("Connection", "close");
    JsonAnswers.json(ctx, 421, JsonAnswers.error(host.isEmpty() ? "a request needs a Host header"
        : "Host " + (host.length() > 255 ? host.substring(0, 255) + "..." : host) + " is not a name of this service;"
        + " add it to http.allowed_hosts if it is"));
  }

  /** Whether a request's Host (without its port) names this service. */
  boolean allows(String rawHost) {
    String host = rawHost.toLowerCase(Locale.ROOT);
    if (host.isEmpty()) {
      return false;
    }
    boolean address = host.startsWith("[") || host.indexOf(':') >= 0 || IPV4.matcher(host).matches();
    if (address || host.equals("localhost") || host.indexOf('.') < 0) {
      return true;
    }
    for (String suffix : CLUSTER_SUFFIXES) {
      if (host.endsWith(suffix)) {
        return true;
      }
    }
    for (String name : allowed) {
      if (name.startsWith("*.") ? host.endsWith(name.substring(1)) : host.equals(name)) {
        return true;
      }
    }
    return false;
  }
}
