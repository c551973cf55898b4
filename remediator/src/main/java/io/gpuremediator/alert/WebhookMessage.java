package io.gpuremediator.alert;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/** One Alertmanager webhook body (version 4). Fields we do not use are not kept. */
public record WebhookMessage(
    String receiver,
    AlertStatus status,
    String groupKey,
    int truncatedAlerts,
    Map<String, String> groupLabels,
    List<Alert> alerts) {

  /** Validates presence and copies collections. */
  public WebhookMessage {
    receiver = receiver == null ? "" : receiver;
    Objects.requireNonNull(status, "status");
    groupKey = groupKey == null ? "" : groupKey;
    groupLabels = Map.copyOf(groupLabels);
    alerts = List.copyOf(alerts);
  }
}
