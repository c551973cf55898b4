package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import java.util.List;
import java.util.Optional;

/** What asking to start a long step found. */
public sealed interface StepStart {
  /**
   * Go: the episode moves to the step's running stage with this note.
   *
   * @param decided the detail of a {@code started} decision made now; empty when the step decides it later
   * @param notices decisions about what the start found (evidence stored, or not), each made once per episode
   */
  record Go(String note, Optional<String> decided, List<Notice> notices) implements StepStart {
    /** A start that found nothing to record apart. */
    public Go(String note, Optional<String> decided) {
      this(note, decided, List.of());
    }

    /** Copies the notices. */
    public Go {
      notices = List.copyOf(notices);
    }
  }

  /** A decision a start makes beside its own: its reason and detail. */
  record Notice(Reason reason, String detail) {}

  /**
   * Not now (a budget, a slot): the note says why, the reason is decided once per episode.
   *
   * @param backToQuarantined whether the episode waits in stage quarantined (rather than where it is)
   */
  record Wait(Reason reason, String note, boolean backToQuarantined) implements StepStart {}

  /** Not possible on this node (no such device): the step fails as a look would, and on_fail decides. */
  record Failed(Reason reason, String why) implements StepStart {}

  /** Never, as things are (no cloud configured, another cloud): the episode needs a human. */
  record Impossible(Reason reason, String why) implements StepStart {}
}
