package io.gpuremediator.state;

import java.time.Instant;
import java.util.Optional;

/**
 * An Alertmanager silence an episode holds: its id, and the start and end it was last put with (a renewal keeps the
 * start). Held as {@code silence/<id>}, its value {@code "<startsAt> <endsAt>"}.
 */
public record HeldSilence(String id, Instant startsAt, Instant endsAt) {
  /** The kind of holding. */
  public static final String KIND = "silence";

  /** The silence a holding is, if it is one; an unreadable time reads as the epoch, so the silence is renewed at once. */
  public static Optional<HeldSilence> of(Held h) {
    if (!h.kind().equals(KIND)) {
      return Optional.empty();
    }
    String[] parts = h.value().split(" ");
    try {
      return Optional.of(new HeldSilence(h.name(), Instant.parse(parts[0]), Instant.parse(parts[1])));
    } catch (RuntimeException e) {
      return Optional.of(new HeldSilence(h.name(), Instant.EPOCH, Instant.EPOCH));
    }
  }

  /** As the ledger holds it. */
  public Held held() {
    return new Held(KIND, id, startsAt + " " + endsAt);
  }
}
