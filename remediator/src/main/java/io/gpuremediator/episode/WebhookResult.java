package io.gpuremediator.episode;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import java.util.List;

/** The decisions for one webhook, in alert order. */
public record WebhookResult(List<Decision> decisions) {
  /** Copies the list. */
  public WebhookResult {
    decisions = List.copyOf(decisions);
  }

  /** Whether a required Kubernetes write failed transiently, so Alertmanager should retry the webhook. */
  public boolean shouldRetry() {
    return decisions.stream().anyMatch(d -> d.reason() == Reason.KUBE_UNAVAILABLE || d.reason() == Reason.SAFETY_STATE_UNAVAILABLE
        || d.reason() == Reason.NOT_LEADER);
  }
}
