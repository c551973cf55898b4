package io.gpuremediator.episode;

import io.gpuremediator.action.StepStages;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Stage;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one transition table of an episode: for each event, the stages it may happen in, the stage it leads to, and the
 * decision it records. A long step's own stages ({@link StepStages}) fill in the step rows. Every write that moves an
 * episode goes through {@link EpisodeMoves}, which checks it here: a move the table does not allow is a bug, and is
 * refused before anything is written.
 */
enum Transition {
  /** The webhook's immediate steps ran for a new episode. */
  OPENED(Stages.NONE, Target.QUARANTINED, Optional.empty(), false, ""),
  /** A new node carrying the pre-flight taint: the gate opened an episode for it (its Job is the step's decision). */
  PREFLIGHT_OPENED(Stages.NONE, Target.PREFLIGHT, Optional.empty(), false, ""),
  /** Immediate steps ran in the background and the cursor moved on. */
  STEPS_RAN(Stages.ACTIVE, Target.SAME, Optional.of(Reason.STEPS_APPLIED), false, ""),
  /** The alert resolved: remembered until the firing steps are done, or the release list starts. */
  RESOLVED(Stages.LIVE, Target.SAME, Optional.empty(), false, ""),
  /** A long step cannot start yet (a slot, a budget): the note says why, the reason is decided once. */
  WAITING(Stages.ACTIVE, Target.SAME_OR_QUARANTINED, Optional.empty(), false, ""),
  /** A long step started: its running stage (its {@code started} decision when it makes one now). */
  STEP_STARTED(Stages.ACTIVE, Target.STEP_RUNNING, Optional.empty(), true, ""),
  /** A long step under way: a new note, a time to look again, or the handle of what it started outside. */
  STEP_RUNNING(Stages.ACTIVE, Target.SAME, Optional.empty(), true, ""),
  /** A long step passed: its passed stage, the cursor on the next step. */
  STEP_PASSED(Stages.ACTIVE, Target.STEP_PASSED, Optional.empty(), true, ""),
  /** A long step failed: its failed stage, for a human's retry or release. */
  STEP_FAILED(Stages.ACTIVE, Target.STEP_FAILED, Optional.empty(), true, "needs_human"),
  /** A failed step escalated the episode to the playbook it names. */
  ESCALATED(Stages.ACTIVE, Target.ESCALATED, Optional.of(Reason.ESCALATED), true, ""),
  /** Before a long step, the node shows another repairer's sign ({@code defer_to}): the episode waits for it. */
  DEFERRED_TO(Stages.ACTIVE, Target.DEFERRED, Optional.of(Reason.DEFERRED), true, ""),
  /** A deferred node rebooted and still shows the sign: the other repairer is at work, its deadline starts again. */
  REPAIR_SEEN(EnumSet.of(Stage.DEFERRED), Target.SAME, Optional.empty(), false, ""),
  /** The other repairer's deadline passed with no repair seen: our episode goes on from where it was deferred. */
  TAKEN_OVER(EnumSet.of(Stage.DEFERRED), Target.QUARANTINED, Optional.of(Reason.DEFERRAL_TAKEN_OVER), true, ""),
  /** The other repairer's deadline passed with no repair seen: people are paged once, the episode stays deferred. */
  DEFERRAL_PAGED(EnumSet.of(Stage.DEFERRED), Target.SAME, Optional.of(Reason.DEFERRAL_PAGED), false, ""),
  /** The other repairer finished (its sign is gone): our release steps ran, the episode is over, closed by it. */
  HANDED_BACK(EnumSet.of(Stage.DEFERRED), Target.RELEASED, Optional.of(Reason.HANDED_BACK), true, "released"),
  /** The other repairer replaced the deferred node (the Node object is gone): the episode is over, closed by it. */
  REPLACED_BY_OTHER(EnumSet.of(Stage.DEFERRED), Target.REPLACED, Optional.of(Reason.HANDED_BACK), true, "replaced"),
  /** Nothing more can happen automatically (a template renders an invalid value, a step can never start). */
  NEEDS_HUMAN(Stages.ACTIVE, Target.NEEDS_HUMAN, Optional.empty(), true, "needs_human"),
  /** Every release step ran: the episode is over. */
  RELEASED(Stages.LIVE, Target.RELEASED, Optional.of(Reason.RELEASED), true, "released"),
  /** A human released the node: its release steps ran now, whatever the stage. */
  RELEASED_BY_HUMAN(Stages.LIVE, Target.RELEASED, Optional.of(Reason.RELEASED_BY_HUMAN), true, "released"),
  /** Someone else took the node back (uncordoned it, removed our taint): the episode is over, nothing is put back. */
  HUMAN_OVERRIDE(Stages.LIVE, Target.RELEASED, Optional.of(Reason.HUMAN_OVERRIDE), true, "released"),
  /** A human retried the failed step. */
  RETRIED(Stages.FAILED, Target.RETRIED, Optional.of(Reason.STEP_RETRIED), true, ""),
  /** The Node object is gone after a replacement: the episode is over. */
  REPLACED(EnumSet.of(Stage.REPLACING), Target.REPLACED, Optional.of(Reason.REPLACED), true, "replaced"),
  /** The Node object was deleted during a step that waits on it (a reboot, a pre-flight): the episode is over with it. */
  NODE_DELETED(EnumSet.of(Stage.REPAIRING, Stage.PREFLIGHT), Target.REPLACED, Optional.of(Reason.NODE_DELETED), true, "deleted");

  private final Set<Stage> from;
  private final Target target;
  private final Optional<Reason> reason;
  private final boolean announced;
  private final String endsAs;

  Transition(Set<Stage> from, Target target, Optional<Reason> reason, boolean announced, String endsAs) {
    this.from = from;
    this.target = target;
    this.reason = reason;
    this.announced = announced;
    this.endsAs = endsAs;
  }

  /**
   * How the episode ends by this move, for {@code remediator_episode_duration_seconds}: {@code released},
   * {@code replaced}, {@code needs_human} (it stops for a human); empty when it goes on.
   */
  Optional<String> endsAs() {
    return endsAs.isEmpty() ? Optional.empty() : Optional.of(endsAs);
  }

  /** The decision this transition records, when the table fixes it (a step's rows take the step's). */
  Optional<Reason> reason() {
    return reason;
  }

  /** Whether its decision is a stage change: an Event on the node and a notification to {@code stage_changes}. */
  boolean announced() {
    return announced;
  }

  /**
   * Checks a move from stage {@code before} (empty: no episode yet) to {@code after} for the step {@code step} of the
   * episode (empty when the move is not about a long step).
   *
   * @throws IllegalStateException when the table does not allow it
   */
  void check(Optional<Stage> before, Stage after, Optional<StepStages> step) {
    boolean fromOk = before.map(from::contains).orElse(this == OPENED || this == PREFLIGHT_OPENED);
    if (!fromOk || !target.allows(before.orElse(null), after, step)) {
      throw new IllegalStateException("episode transition " + this + " from " + before.map(Stage::code).orElse("none")
          + " to " + after.code() + " is not in the table");
    }
  }

  /** The stages a transition may start from. */
  private static final class Stages {
    static final Set<Stage> NONE = EnumSet.noneOf(Stage.class);
    static final Set<Stage> FAILED = where(Stage::isFailed);
    static final Set<Stage> LIVE = where(s -> !s.isOver());
    static final Set<Stage> ACTIVE = where(s -> !s.isOver() && !s.isFailed());

    private static Set<Stage> where(Predicate<Stage> p) {
      Set<Stage> out = EnumSet.noneOf(Stage.class);
      for (Stage s : Stage.values()) {
        if (p.test(s)) {
          out.add(s);
        }
      }
      return out;
    }
  }

  /** The stage a transition leads to. */
  private enum Target {
    SAME, QUARANTINED, PREFLIGHT, SAME_OR_QUARANTINED, STEP_RUNNING, STEP_PASSED, STEP_FAILED, ESCALATED, DEFERRED, NEEDS_HUMAN,
    RETRIED,
    RELEASED, REPLACED;

    boolean allows(Stage before, Stage after, Optional<StepStages> step) {
      return switch (this) {
        case SAME -> after == before;
        case QUARANTINED -> after == Stage.QUARANTINED;
        case PREFLIGHT -> after == Stage.PREFLIGHT;
        case SAME_OR_QUARANTINED -> after == before || after == Stage.QUARANTINED;
        case STEP_RUNNING -> step.isPresent() && after == step.get().running();
        case STEP_PASSED -> step.isPresent() && after == step.get().passed().orElse(before);
        case STEP_FAILED -> step.isPresent() && after == step.get().failed();
        case ESCALATED -> after == Stage.ESCALATED;
        case DEFERRED -> after == Stage.DEFERRED;
        case NEEDS_HUMAN -> after == Stage.NEEDS_HUMAN;
        case RETRIED -> after == Stage.QUARANTINED || step.isPresent() && after == step.get().running();
        case RELEASED -> after == Stage.RELEASED;
        case REPLACED -> after == Stage.REPLACED;
      };
    }
  }
}
