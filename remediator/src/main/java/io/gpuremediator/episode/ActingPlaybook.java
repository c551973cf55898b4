package io.gpuremediator.episode;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.value.Durations;
import java.time.Instant;
import java.util.Optional;

/**
 * Which playbook acts on an alert: a resolution is released by the playbook that acted on its episode; a repeat
 * offender's firing alert runs the escalation of its playbook's ladder (the Nth episode on the node within the window).
 */
final class ActingPlaybook {
  private ActingPlaybook() {}

  /** What the choice came to. */
  sealed interface Choice {}

  /** {@code playbook} acts; {@code note} says why when it is not the one the alert matched (else empty). */
  record Acting(Playbook playbook, String note) implements Choice {}

  /** The resolution ends another firing of the alert than the node's episode: nothing is released. */
  record OtherEpisode(String detail) implements Choice {}

  /** Chooses for an alert that matched {@code matched} on {@code node}, {@code now}. */
  static Choice of(Alert alert, Playbook matched, NodeInfo node, PlaybookSet set, Instant now) {
    if (!alert.isFiring()) {
      Episode active = node.ledger().episodes().get(alert.fingerprint());
      if (active != null && !active.startsAt().equals(alert.startsAt())) {
        return new OtherEpisode("resolved with startsAt " + alert.startsAt() + ", not the episode's "
            + active.startsAt() + ": it ends another firing of the alert; nothing is released");
      }
      Optional<Playbook> acted = Optional.ofNullable(active).flatMap(ep -> set.named(ep.playbook()));
      return acted.filter(pb -> !pb.name().equals(matched.name()))
          .map(pb -> new Acting(pb, "released by " + pb.name() + ", the playbook that acted on this episode; "))
          .orElseGet(() -> new Acting(matched, ""));
    }
    Optional<Playbook> escalated = escalation(matched, node, set, now);
    if (escalated.isEmpty()) {
      return new Acting(matched, "");
    }
    Playbook.Escalation rule = matched.escalate().orElseThrow();
    return new Acting(escalated.get(), "escalated from " + matched.name() + " (episode " + rule.after() + " within "
        + Durations.format(rule.within()) + "); ");
  }

  /** The playbook a repeat offender is escalated to: the Nth episode of this playbook's ladder on the node in the window. */
  private static Optional<Playbook> escalation(Playbook playbook, NodeInfo node, PlaybookSet set, Instant now) {
    if (playbook.escalate().isEmpty()) {
      return Optional.empty();
    }
    Playbook.Escalation e = playbook.escalate().get();
    int earlier = node.ledger().episodesSince(set.ladderOf(playbook), now.minus(e.within()));
    return earlier + 1 >= e.after() ? set.named(e.to()) : Optional.empty();
  }
}
