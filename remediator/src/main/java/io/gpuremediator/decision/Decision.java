package io.gpuremediator.decision;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What was decided for one alert of one webhook.
 *
 * @param node the resolved node name, or empty when none was resolved
 * @param playbook the matching playbook, or empty
 * @param detail a human sentence explaining the reason
 */
public record Decision(
    Instant time,
    String fingerprint,
    Instant startsAt,
    String alertname,
    String status,
    String node,
    String playbook,
    Reason reason,
    String detail,
    List<ActionRecord> actions) {

  /** Validates presence and copies the actions. */
  public Decision {
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(startsAt, "startsAt");
    Objects.requireNonNull(alertname, "alertname");
    Objects.requireNonNull(status, "status");
    node = node == null ? "" : node;
    playbook = playbook == null ? "" : playbook;
    Objects.requireNonNull(reason, "reason");
    detail = detail == null ? "" : detail;
    actions = List.copyOf(actions);
  }

  /** The outcome, which follows from the reason. */
  public Outcome outcome() {
    return reason.outcome();
  }
}
