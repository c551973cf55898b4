package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.LongStep;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code defer_to} for a running episode, both ways. Before its next long step, a node that shows a sign that another
 * system owns its repair defers the episode ({@code deferred}: what it took stays, nothing more runs). Each look at a
 * deferred episode then asks what the other repairer did: its sign gone (after its reboot or not) hands the node back,
 * our release steps lift our quarantine and the episode closes {@code closed_by="other"}; the Node replaced closes it
 * the same way ({@link NodeUpkeep}); a reboot with the sign still there is a repair under way, and its deadline starts
 * again; the deadline passed with no repair seen takes the episode over (it goes on from its step) or pages people,
 * once. Two repairers never drain and reboot one node at once; the new episodes such a node would start are refused by
 * the engine, or quarantined and deferred here when the sign has a deadline.
 */
final class OtherRepairer {
  /** The task of a deferred episode; its handle is the node's boot ID when it was deferred or last seen rebooted. */
  static final String TASK = "defer_to";
  /** Recorded in the episode once it took the node over: it is never deferred again. */
  static final String TAKEN_OVER = "defer_to/taken_over";
  /** Recorded in the episode once people were paged for its deadline: they are paged once. */
  static final String PAGED = "defer_to/paged";

  private final Cluster cluster;
  private final List<DeferRule> rules;
  private final EpisodeMoves moves;
  private final StepPorts ports;
  private final GoneNodes gone;

  OtherRepairer(Cluster cluster, List<DeferRule> rules, EpisodeMoves moves, StepPorts ports, GoneNodes gone) {
    this.cluster = cluster;
    this.rules = List.copyOf(rules);
    this.moves = moves;
    this.ports = ports;
    this.gone = gone;
  }

  /** Whether the episode was deferred to another repairer before its next long step (decided deferred). */
  boolean defersBeforeStep(String node, Episode e) throws ClusterException {
    if (rules.isEmpty() || e.progress().releasing() || e.notified(TAKEN_OVER)) {
      return false;
    }
    Optional<NodeInfo> n = cluster.node(node);
    Optional<DeferRule> sign = n.flatMap(x -> DeferRule.firstRule(rules, x));
    if (sign.isEmpty()) {
      return false;
    }
    Instant now = moves.now();
    Progress p = e.progress();
    String why = node + " shows " + sign.get().describe() + ": another system owns its repair (defer_to); our steps stop"
        + " before the next, the node as it is, until it hands the node back (the sign gone: our release steps lift our"
        + " quarantine) or a human releases it" + sign.get().deadline().map(d -> "; after " + Durations.format(d.after())
            + " with no repair seen, " + (d.then() == DeferRule.Then.TAKE_OVER ? "we take the node over" : "people are paged"))
        .orElse("");
    Episode next = e.with(p.inStage(Stage.DEFERRED, now).running(new Task(TASK, p.next(), now, 1, n.get().bootId(),
        Optional.empty())).noted(why));
    moves.move(node, e, Transition.DEFERRED_TO, next, Optional.empty(), Reason.DEFERRED, why)
        .ifPresent(written -> gone.track(node, written, cluster.ledgerOf(node), LongStep.WhenNodeGone.ENDS_EPISODE));
    return true;
  }

  /**
   * One look at a deferred episode: handed back, a repair seen, taken over or paged, or still waiting. Answers the
   * episode to carry on with (taken over), else null.
   */
  Episode look(String node, Episode e, Playbook playbook) throws ClusterException {
    Optional<NodeInfo> n = cluster.node(node);
    if (n.isEmpty()) {
      return null; // the Node is gone: NodeUpkeep closes the episode from its last ledger
    }
    gone.track(node, e, cluster.ledgerOf(node), LongStep.WhenNodeGone.ENDS_EPISODE); // again after a restart
    Progress p = e.progress();
    Task task = p.task().orElseThrow();
    String boot = n.get().bootId();
    boolean rebooted = !task.handle().isEmpty() && !boot.isEmpty() && !task.handle().equals(boot);
    Optional<DeferRule> sign = DeferRule.firstRule(rules, n.get());
    Instant now = moves.now();
    if (sign.isEmpty()) {
      handBack(node, e, playbook, rebooted ? "it rebooted " + node + " (boot ID " + task.handle() + " -> " + boot
          + ") and the sign is gone" : "the sign is gone (no reboot seen)");
      return null;
    }
    if (rebooted) {
      moves.quietly(node, e, Transition.REPAIR_SEEN, e.with(p.running(new Task(TASK, task.step(), now, task.attempt(), boot,
          Optional.empty())).noted(node + " rebooted (boot ID " + boot + ") and still shows " + sign.get().describe()
          + ": a repair under way; its deadline starts again")), Optional.empty());
      return null;
    }
    Optional<DeferRule.Deadline> deadline = sign.get().deadline();
    if (deadline.isEmpty() || now.isBefore(task.started().plus(deadline.get().after())) || e.notified(PAGED)) {
      return null;
    }
    String late = node + " still shows " + sign.get().describe() + " " + Durations.format(deadline.get().after())
        + " after it was deferred, with no repair seen (no reboot, no replacement, the sign not cleared)";
    if (deadline.get().then() == DeferRule.Then.TAKE_OVER) {
      gone.forget(node);
      Episode next = e.with(p.inStage(Stage.QUARANTINED, now).at(task.step()).noted(late + ": taken over"))
          .withNotified(TAKEN_OVER);
      return moves.move(node, e, Transition.TAKEN_OVER, next, Optional.empty(), Reason.DEFERRAL_TAKEN_OVER, late
          + "; our episode goes on from step " + (task.step() + 1) + " of " + playbook.name()).orElse(null);
    }
    String paged = late + "; people are paged, once, and the episode stays deferred for the other repairer or a human";
    moves.move(node, e, Transition.DEFERRAL_PAGED, e.with(p.noted(paged)).withNotified(PAGED), Optional.empty(),
        Reason.DEFERRAL_PAGED, paged).ifPresent(written -> moves.page(node, written, Reason.DEFERRAL_PAGED, paged));
    return null;
  }

  /** The other repairer finished: our release steps run now (long ones skipped), what we hold is given back. */
  private void handBack(String node, Episode e, Playbook playbook, String seen) throws ClusterException {
    List<ActionSpec> steps = new ArrayList<>(playbook.onResolved());
    steps.addAll(ActionRegistry.undoLeftovers(cluster.ledgerOf(node), e.fingerprint(), steps));
    Optional<EpisodeWriter.Written> w;
    try {
      w = moves.runSteps(node, e, Transition.HANDED_BACK, steps, Phase.RESOLVED, Optional.empty(),
          "skipped: handed back by the other repairer");
    } catch (RenderException ex) {
      moves.needsHuman(node, e, Reason.TEMPLATE_INVALID, ex.getMessage());
      return;
    }
    if (w.isEmpty()) {
      return;
    }
    gone.forget(node);
    String left;
    try {
      left = String.join("; ", ActionRegistry.giveBack(node, e, ports));
    } catch (ClusterException ex) { // the ledger holds them for no episode now: the loop gives them back
      left = "what it holds outside the node is given back by the loop (" + ex.getMessage() + ")";
    }
    moves.decided(node, e.with(e.progress().releasingFromStart()), Transition.HANDED_BACK, null, "the repairer the"
        + " episode was deferred to finished: " + seen + "; the release steps of " + playbook.name() + " ran, the episode"
        + " is over"
        + (left.isEmpty() ? "" : "; " + left), w.get().records(), Stage.RELEASED);
  }
}
