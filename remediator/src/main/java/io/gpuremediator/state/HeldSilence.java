package io.gpuremediator.state;

import java.time.Instant;

/**
 * An Alertmanager silence an episode holds: its id, and the start and end it was last put with (a renewal keeps the
 * start). The ledger keeps it as {@code "<id> <startsAt> <endsAt>"}.
 */
public record HeldSilence(String id, Instant startsAt, Instant endsAt) {
  /** As the ledger keeps it; an unreadable time reads as the epoch, so the silence is renewed at once. */
  static HeldSilence parse(String value) {
    String[] parts = value.split(" ");
    try {
      return new HeldSilence(parts[0], Instant.parse(parts[1]), Instant.parse(parts[2]));
    } catch (RuntimeException e) {
      return new HeldSilence(parts[0], Instant.EPOCH, Instant.EPOCH);
    }
  }

  /** As the ledger keeps it. */
  String value() {
    return id + " " + startsAt + " " + endsAt;
  }
}
