package io.gpuremediator.config;

import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Decodes {@code http}: {@code allowed_hosts}, the names besides the defaults (an IP address, {@code localhost}, a
 * name without a dot, one under {@code .svc} or {@code .svc.cluster.local}) that a request's {@code Host} may carry:
 * an ingress's name, exactly or as {@code *.suffix}.
 */
final class HttpConfig {
  private static final Pattern HOST = Pattern.compile("(\\*\\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
      + "(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

  private HttpConfig() {}

  static List<String> allowedHosts(MapReader m, Problems problems) {
    List<String> hosts = new ArrayList<>();
    m.map("http", "http").ifPresent(h -> {
      h.list("allowed_hosts").ifPresent(items -> items.forEach(n -> h.scalar(n, "allowed_hosts").ifPresent(host -> {
        String name = host.toLowerCase(Locale.ROOT);
        if (!HOST.matcher(name).matches() || name.length() > 253) {
          problems.add(n, "\"allowed_hosts\" entry \"" + host + "\" in http is not a host name (nor *.a-suffix); a port"
              + " is not part of it");
        } else {
          hosts.add(name);
        }
      })));
      h.finish();
    });
    return List.copyOf(hosts);
  }
}
