package io.gpuremediator.backtest;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The webhooks Alertmanager would have sent for an alert history: each stretch of an alert's firing (samples no more
 * than a step apart) becomes the alert firing at its first sample and resolved a step after its last, unless it still
 * fires at the end of the range; the alerts of one instant go in one webhook, in time order.
 */
public final class Replay {
  /** A webhook and the instant it would have been sent. */
  public record Webhook(Instant at, WebhookMessage message) {}

  private Replay() {}

  /** The webhooks for {@code history}, sampled every {@code step}, up to {@code end}. */
  public static List<Webhook> of(List<AlertHistory.Series> history, Duration step, Instant end) {
    Map<Instant, List<Alert>> byInstant = new TreeMap<>();
    for (AlertHistory.Series s : history) {
      String fingerprint = Fingerprint.of(s.labels());
      List<Instant> times = s.firing();
      int first = 0;
      for (int i = 1; i <= times.size(); i++) {
        boolean stretchEnds = i == times.size() || Duration.between(times.get(i - 1), times.get(i)).compareTo(step) > 0;
        if (!stretchEnds) {
          continue;
        }
        Instant startsAt = times.get(first);
        Instant endsAt = times.get(i - 1).plus(step);
        byInstant.computeIfAbsent(startsAt, t -> new ArrayList<>()).add(
            new Alert(AlertStatus.FIRING, s.labels(), Map.of(), startsAt, Optional.empty(), "", fingerprint));
        if (!endsAt.isAfter(end)) {
          byInstant.computeIfAbsent(endsAt, t -> new ArrayList<>()).add(
              new Alert(AlertStatus.RESOLVED, s.labels(), Map.of(), startsAt, Optional.of(endsAt), "", fingerprint));
        }
        first = i;
      }
    }
    List<Webhook> out = new ArrayList<>();
    byInstant.forEach((at, alerts) -> {
      AlertStatus status = alerts.stream().anyMatch(Alert::isFiring) ? AlertStatus.FIRING : AlertStatus.RESOLVED;
      out.add(new Webhook(at, new WebhookMessage("backtest", status, "{}:{remediate=\"true\"}", 0,
          Map.of("remediate", "true"), alerts)));
    });
    return out;
  }
}
