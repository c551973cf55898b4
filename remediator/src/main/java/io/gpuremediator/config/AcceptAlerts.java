package io.gpuremediator.config;

import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Decodes {@code accept_alerts}: Alertmanager matchers every alert must satisfy to be acted on (a shared Alertmanager
 * sends many clusters' alerts, and node names collide across clusters); empty accepts every alert, and is warned of.
 */
final class AcceptAlerts {
  private AcceptAlerts() {}

  static List<Matcher> decode(MapReader m, Problems problems) {
    List<Matcher> out = new ArrayList<>();
    m.list("accept_alerts").ifPresent(items -> {
      for (Node item : items) {
        m.scalar(item, "accept_alerts").ifPresent(text -> {
          var parsed = Matcher.parse(text);
          if (parsed.error() != null) {
            problems.add(item, "accept_alerts: " + parsed.error());
          } else {
            out.add(parsed.value());
          }
        });
      }
    });
    return out;
  }

  /** What {@code validate} prints and {@code serve} logs when nothing limits which alerts are acted on. */
  static List<String> warnings(List<Matcher> accept) {
    if (!accept.isEmpty()) {
      return List.of();
    }
    return List.of("accept_alerts is empty: every alert that reaches the service is acted on; behind a shared Alertmanager"
        + " (Thanos, Mimir, a central one) another cluster's alert for a node of the same name would quarantine this"
        + " cluster's node. List matchers every alert of this cluster carries, such as ['cluster=\"prod-a\"']");
  }
}
