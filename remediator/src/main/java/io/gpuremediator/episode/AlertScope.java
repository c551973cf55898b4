package io.gpuremediator.episode;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Resolution;
import io.gpuremediator.playbook.Matcher;
import java.util.List;
import java.util.Optional;

/**
 * Which alerts this service acts on ({@code accept_alerts}): a shared Alertmanager (Thanos, Mimir, a central one) sends
 * every cluster's alerts to every receiver, and node names collide across clusters. An alert that does not satisfy
 * every matcher is another cluster's: decided {@code ignored/foreign_alert} before its node is looked up, and never
 * counted toward the storm breaker. No matchers accept every alert.
 */
record AlertScope(List<Matcher> accept) {
  /** Every alert is ours. */
  static final AlertScope ALL = new AlertScope(List.of());

  /** Copies the matchers. */
  AlertScope {
    accept = List.copyOf(accept);
  }

  /** Why the alert is not ours (the first matcher it fails), or empty when it is. */
  Optional<Resolution> outside(Alert alert) {
    for (Matcher m : accept) {
      if (!m.matches(alert.labels())) {
        return Optional.of(new Resolution.Ineligible(Reason.FOREIGN_ALERT, "", "the alert does not satisfy accept_alerts ("
            + m + "): another cluster's, or not meant for this service; nothing was looked at or touched"));
      }
    }
    return Optional.empty();
  }

  /** Whether a resolution says the alert is not ours. */
  static boolean isForeign(Resolution r) {
    return r instanceof Resolution.Ineligible no && no.reason() == Reason.FOREIGN_ALERT;
  }
}
