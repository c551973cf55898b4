package io.gpuremediator.decision;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What was decided for one alert of one webhook. Text that came from the alert is capped (a label value of a
 * megabyte would otherwise be kept in the decision log and written to every log line and answer about it).
 *
 * @param node the resolved node name, or empty when none was resolved
 * @param playbook the matching playbook, or empty
 * @param detail a human sentence explaining the reason
 * @param wouldBeRefused for a dry-run of a new episode, the safety limit that would have refused it
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
    List<ActionRecord> actions,
    Optional<Refusal> wouldBeRefused) {

  /** The most characters a name (fingerprint, alertname, node) keeps; a Kubernetes name is at most 253. */
  public static final int NAME_CHARS = 512;
  /** The most characters the detail keeps. */
  public static final int DETAIL_CHARS = 2048;

  /** Validates presence, caps text from the alert and copies the actions. */
  public Decision {
    Objects.requireNonNull(time, "time");
    fingerprint = capped(Objects.requireNonNull(fingerprint, "fingerprint"), NAME_CHARS);
    Objects.requireNonNull(startsAt, "startsAt");
    alertname = capped(Objects.requireNonNull(alertname, "alertname"), NAME_CHARS);
    Objects.requireNonNull(status, "status");
    node = node == null ? "" : capped(node, NAME_CHARS);
    playbook = playbook == null ? "" : playbook;
    Objects.requireNonNull(reason, "reason");
    detail = detail == null ? "" : capped(detail, DETAIL_CHARS);
    actions = List.copyOf(actions);
    Objects.requireNonNull(wouldBeRefused, "wouldBeRefused");
  }

  /** A decision that no safety limit was asked about as a dry-run. */
  public Decision(Instant time, String fingerprint, Instant startsAt, String alertname, String status, String node,
      String playbook, Reason reason, String detail, List<ActionRecord> actions) {
    this(time, fingerprint, startsAt, alertname, status, node, playbook, reason, detail, actions, Optional.empty());
  }

  /** The text, or its first {@code max} characters and how many more there were. */
  static String capped(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max) + "...(" + (text.length() - max) + " more characters)";
  }

  /** The outcome, which follows from the reason. */
  public Outcome outcome() {
    return reason.outcome();
  }
}
