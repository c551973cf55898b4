package io.gpuremediator.episode;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/** The decisions about one alert of a webhook, dated by the engine's clock. */
final class AlertDecisions {
  private final Clock clock;

  AlertDecisions(Clock clock) {
    this.clock = clock;
  }

  /** Now, by the engine's clock. */
  Instant now() {
    return clock.instant();
  }

  Decision decision(Alert alert, String node, String playbook, Reason reason, String detail, List<ActionRecord> actions) {
    return new Decision(clock.instant(), alert.fingerprint(), alert.startsAt(), alert.alertname(), alert.status().code(),
        node, playbook, reason, detail, actions);
  }

  /** This exact episode was already handled on the node ({@link io.gpuremediator.state.NodeLedger#handled}). */
  Decision duplicate(Alert alert, String node, String playbook) {
    return decision(alert, node, playbook, Reason.DUPLICATE_EPISODE,
        "episode " + alert.fingerprint() + "@" + alert.startsAt() + " was already handled on this node", List.of());
  }
}
