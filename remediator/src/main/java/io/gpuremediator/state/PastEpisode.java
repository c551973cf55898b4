package io.gpuremediator.state;

import java.time.Instant;
import java.util.Objects;

/** An episode that ended (released, or its node replaced): {@code playbook} ran it last, its alert {@code matched}. */
public record PastEpisode(String fingerprint, Instant startsAt, String playbook, Instant since, Instant releasedAt,
    String matched) {
  /** Validates presence; an episode recorded before {@code matched} was kept matched the playbook that ran it. */
  public PastEpisode {
    Objects.requireNonNull(playbook, "playbook");
    matched = matched == null || matched.isEmpty() ? playbook : matched;
  }
}
