package io.gpuremediator.episode;

import io.gpuremediator.action.RenderException;
import io.gpuremediator.action.StepStages;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The one owner of an episode's moves in the background and by a human: each is checked against the
 * {@link Transition} table, written fenced ({@link EpisodeWriter}), and decided; a stage change is also an Event and a
 * notification to the receivers that asked for stage changes. Nothing else writes a stage but the webhook's opening,
 * resolution and release of an episode ({@link AlertWrite}), which checks the same table.
 */
final class EpisodeMoves {
  private final EpisodeWriter writer;
  private final EpisodeDecisions decisions;
  private final EpisodeOutbound outbound;
  private final Supplier<PlaybookSet> playbooks;

  EpisodeMoves(EpisodeWriter writer, EpisodeDecisions decisions, EpisodeOutbound outbound, Supplier<PlaybookSet> playbooks) {
    this.writer = writer;
    this.decisions = decisions;
    this.outbound = outbound;
    this.playbooks = playbooks;
  }

  /**
   * Creates the silences and sends the notifications the steps just run queued, so that they go out before the stage
   * change of the step after them; the episode as now written (null when fenced out).
   */
  Episode sendOwed(String node, Episode e, Playbook pb) throws ClusterException {
    return outbound.due(e, pb, writer.now()) ? outbound.keep(node, e, pb) : e;
  }

  /** A move that records no decision (a note, a cursor, a time to look again); empty when fenced out. */
  Optional<Episode> quietly(String node, Episode from, Transition t, Episode to, Optional<StepStages> step)
      throws ClusterException {
    check(from, t, to.progress().stage(), step);
    return writer.replace(node, from, to).flatMap(EpisodeWriter.Written::episode);
  }

  /**
   * A move with its decision ({@code reason}, or the table's when it fixes one); empty when fenced out, and then
   * nothing is decided.
   */
  Optional<Episode> move(String node, Episode from, Transition t, Episode to, Optional<StepStages> step, Reason reason,
      String detail) throws ClusterException {
    return moveDecided(node, from, t, to, step, reason, detail).map(d -> to);
  }

  /** {@link #move}, answering the decision it recorded. */
  Optional<Decision> moveDecided(String node, Episode from, Transition t, Episode to, Optional<StepStages> step,
      Reason reason, String detail) throws ClusterException {
    check(from, t, to.progress().stage(), step);
    if (writer.replace(node, from, to).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(decided(node, to, t, reason, detail, List.of(), to.progress().stage()));
  }

  /**
   * Runs immediate steps of the episode's playbook, then records it as {@code after} (or ends it when empty), in one
   * write, and records the Events the steps asked for; the caller decides, with {@link #decided}. Empty when fenced out.
   */
  Optional<EpisodeWriter.Written> runSteps(String node, Episode from, Transition t, List<ActionSpec> specs, Phase phase,
      Optional<Episode> after, String skipped) throws ClusterException, RenderException {
    check(from, t, after.map(a -> a.progress().stage()).orElse(Stage.RELEASED), Optional.empty());
    Optional<EpisodeWriter.Written> w = writer.runSteps(node, from, specs, phase, after, skipped);
    w.ifPresent(written -> decisions.events().recordAll(written.events()));
    return w;
  }

  /**
   * Decides a move {@link #runSteps} wrote: as {@code to}, with the steps' records ({@code reason}, or the table's when
   * null); when the transition is a stage change, also an Event and a notification to {@code stage_changes} receivers.
   */
  Decision decided(String node, Episode to, Transition t, Reason reason, String detail, List<ActionRecord> records,
      Stage stage) {
    Reason decided = reason != null ? reason : t.reason().orElseThrow();
    Optional<Stage> announced = t.announced() ? Optional.of(stage) : Optional.empty();
    Decision d = decisions.decide(node, to, decided, detail, records, announced);
    announced.ifPresent(s -> outbound.stageChanged(node, to, playbooks.get().named(to.playbook()), s, decided, detail));
    String closedBy = closedBy(to, decided);
    t.endsAs().ifPresent(outcome -> decisions.listener().episodeEnded(to.playbook(), outcome, closedBy,
        Duration.between(to.startsAt(), d.time()).toMillis() / 1000.0));
    return d;
  }

  /**
   * Who ended the episode, as {@code remediator_episode_duration_seconds} labels it: {@code other} (the repairer it was
   * deferred to handed the node back, or took the node back from us while it was deferred), {@code human}, or
   * {@code automatic}.
   */
  private static String closedBy(Episode to, Reason decided) {
    boolean deferred = to.progress().stage() == Stage.DEFERRED;
    if (decided == Reason.HANDED_BACK || decided == Reason.HUMAN_OVERRIDE && deferred) {
      return "other";
    }
    return decided == Reason.RELEASED_BY_HUMAN || decided == Reason.HUMAN_OVERRIDE ? "human" : "automatic";
  }

  /** An episode that ended with no write of ours (its Node object is gone): decided only. */
  void ended(String node, Episode last, Transition t, String detail) {
    check(last, t, Stage.REPLACED, Optional.empty());
    Episode over = last.with(last.progress().inStage(Stage.REPLACED, writer.now()).noted("the Node object is gone"));
    decided(node, over, t, null, detail, List.of(), Stage.REPLACED);
  }

  /**
   * A failed step escalates the episode to {@code to}: the escalation decided, and the step's own reason beside it (a
   * decision and an Event: the escalation alone would hide why), unless the escalation already names it (a pre-flight's);
   * empty when fenced out.
   */
  Optional<Episode> escalate(String node, Episode e, Episode next, String to, Reason escalation, Reason failure, String note,
      Stage failedStage) throws ClusterException {
    Optional<Episode> moved = move(node, e, Transition.ESCALATED, next, Optional.empty(), escalation, note + "; escalated to "
        + to);
    moved.filter(m -> failure != escalation).ifPresent(m -> decisions.decide(node, m, failure, note + " (then escalated to "
        + to + ")", List.of(), Optional.of(failedStage)));
    return moved;
  }

  /** The episode stops for a human ({@code needs_human}), deciding why; empty when fenced out. */
  Optional<Episode> needsHuman(String node, Episode e, Reason reason, String why) throws ClusterException {
    Episode next = e.with(e.progress().inStage(Stage.NEEDS_HUMAN, writer.now()).noted(why));
    return move(node, e, Transition.NEEDS_HUMAN, next, Optional.empty(), reason, why);
  }

  /** Pages people ({@code safety.page}) about the episode, as it is now. */
  void page(String node, Episode e, Reason reason, String detail) {
    outbound.page(node, e, e.progress().stage(), reason, detail);
  }

  Instant now() {
    return writer.now();
  }

  EpisodeDecisions decisions() {
    return decisions;
  }

  EpisodeWriter writer() {
    return writer;
  }

  private static void check(Episode from, Transition t, Stage to, Optional<StepStages> step) {
    t.check(Optional.of(from.progress().stage()), to, step);
  }
}
