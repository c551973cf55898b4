package io.gpuremediator.alert;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One alert of a webhook. An episode is {@code fingerprint} plus {@code startsAt}: the same series
 * firing again after it resolved is a new episode.
 *
 * @param endsAt empty when Alertmanager sent its zero time
 */
public record Alert(
    AlertStatus status,
    Map<String, String> labels,
    Map<String, String> annotations,
    Instant startsAt,
    Optional<Instant> endsAt,
    String generatorUrl,
    String fingerprint) {

  /** Validates presence and copies the maps. */
  public Alert {
    Objects.requireNonNull(status, "status");
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    Objects.requireNonNull(startsAt, "startsAt");
    Objects.requireNonNull(endsAt, "endsAt");
    generatorUrl = generatorUrl == null ? "" : generatorUrl;
    Objects.requireNonNull(fingerprint, "fingerprint");
  }

  /** The alert's name, or empty. */
  public String alertname() {
    return labels.getOrDefault("alertname", "");
  }

  /** Whether the alert is firing. */
  public boolean isFiring() {
    return status == AlertStatus.FIRING;
  }
}
