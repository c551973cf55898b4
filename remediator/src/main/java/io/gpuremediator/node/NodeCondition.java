package io.gpuremediator.node;

import java.time.Instant;
import java.util.Objects;

/** One entry of a node's {@code status.conditions}. */
public record NodeCondition(
    String type, String status, String reason, String message, Instant lastTransitionTime, Instant lastHeartbeatTime) {
  /** Validates presence; reason and message may be empty. */
  public NodeCondition {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(status, "status");
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
  }
}
