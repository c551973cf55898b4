package io.gpuremediator.outbound;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A silence as an episode wants it held ({@code POST /api/v2/silences}).
 *
 * @param matchers rendered, each a literal label value or an anchored regex
 * @param comment for people; ends with the episode's marker, by which a silence created before a restart is found
 */
public record SilenceRequest(List<Matcher> matchers, Instant startsAt, Instant endsAt, String createdBy, String comment) {
  /** Copies the matchers. */
  public SilenceRequest {
    matchers = List.copyOf(matchers);
    Objects.requireNonNull(startsAt, "startsAt");
    Objects.requireNonNull(endsAt, "endsAt");
    Objects.requireNonNull(createdBy, "createdBy");
    Objects.requireNonNull(comment, "comment");
  }

  /** One matcher as Alertmanager's API v2 writes it. */
  public record Matcher(String name, String value, boolean isRegex, boolean isEqual) {}
}
