package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.NodeDraft;
import io.gpuremediator.action.PreparedAction;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.action.UnfenceGpuAction;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.Taint;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A human who took the node back: during an episode, someone else uncordoned the node or removed a taint the episode
 * holds (a claim of its ledger whose change is no longer on the node). Told apart from our own writes by the ledger,
 * not by timing: every write of ours changes the node and its claims together. The episode ends at once
 * ({@code released/human_override}, an Event): what it still holds is given back, nothing the human removed is put back,
 * and nothing more is written to the node for it. The node's next alert is a new episode.
 */
final class HumanOverride {
  private HumanOverride() {}

  /** What of the episode's own changes that keep the node out of service is gone from the node, if anything. */
  static Optional<String> removed(NodeInfo n, Episode e) {
    List<String> gone = new ArrayList<>();
    n.ledger().claims().forEach((text, claim) -> {
      if (!claim.holders().contains(e.fingerprint())) {
        return;
      }
      ClaimKey key = ClaimKey.parse(text);
      if (key instanceof ClaimKey.Cordon && !n.unschedulable()) {
        gone.add("the node was uncordoned");
      } else if (key instanceof ClaimKey.TaintClaim t && t.takesNodeOutOfService() && !carries(n, t)) {
        gone.add("taint " + t.key() + ":" + t.effect() + " was removed");
      }
    });
    return gone.isEmpty() ? Optional.empty() : Optional.of(String.join(" and ", gone));
  }

  private static boolean carries(NodeInfo n, ClaimKey.TaintClaim t) {
    for (Taint taint : n.taints()) {
      if (taint.key().equals(t.key()) && taint.effect().apiName().equals(t.effect())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Ends the episode when a human took the node back; answers whether it did (then nothing more runs for it). The
   * write is fenced on the episode, as every other: one that changed meanwhile is looked at again.
   */
  static boolean endIfOverridden(String node, NodeInfo n, Episode e, EpisodeMoves moves, StepPorts ports)
      throws ClusterException {
    Optional<String> what = removed(n, e);
    if (what.isEmpty()) {
      what = unfenced(e, ports);
    }
    if (what.isEmpty()) {
      return false;
    }
    var leftovers = ActionRegistry.undoLeftovers(n.ledger(), e.fingerprint(), List.of());
    Optional<EpisodeWriter.Written> w;
    try {
      w = moves.runSteps(node, e, Transition.HUMAN_OVERRIDE, leftovers, Phase.RESOLVED, Optional.empty(), "");
    } catch (RenderException ex) {
      throw new IllegalStateException("undoing what an episode holds renders no template", ex);
    }
    if (w.isEmpty()) {
      return true;
    }
    ActionRegistry.giveBack(node, e, ports);
    moves.decided(node, e.with(e.progress().releasingFromStart()), Transition.HUMAN_OVERRIDE, Reason.HUMAN_OVERRIDE,
        detail(e, what.get()), w.get().records(), Stage.RELEASED);
    return true;
  }

  /** Which of the episode's DeviceTaintRules someone else deleted, read from the API (a fenced episode only). */
  private static Optional<String> unfenced(Episode e, StepPorts ports) throws ClusterException {
    if (UnfenceGpuAction.unfencing(e)) {
      return Optional.empty(); // our own unfence, its ledger write not yet made
    }
    List<String> gone = new ArrayList<>();
    for (FencedGpu g : e.fenced()) {
      if (ports.devices().rule(g.rule()).isEmpty()) {
        gone.add("DeviceTaintRule " + g.rule() + " fencing GPU " + g.uuid() + " was deleted");
      }
    }
    return gone.isEmpty() ? Optional.empty() : Optional.of(String.join(" and ", gone));
  }

  /** How the decision says it. */
  static String detail(Episode e, String what) {
    return "someone else took the node back during stage " + e.progress().stage().code() + ": " + what
        + "; the episode of " + e.playbook() + " is over and nothing is put back (its next alert is a new episode)";
  }

  /**
   * The node with the episode ended, for the webhook's write when a new alert acts on the node before the loop looked:
   * what the episode still holds is given back as a release would (nothing the human removed is put back), and the
   * episode is past.
   */
  static NodeInfo ended(NodeInfo n, Episode e, Instant now) {
    Transition.HUMAN_OVERRIDE.check(Optional.of(e.progress().stage()), Stage.RELEASED, Optional.empty());
    NodeDraft draft = new NodeDraft(n, e.fingerprint(), Phase.RESOLVED, now);
    try {
      for (PreparedAction step : StepRecords.prepare(ActionRegistry.undoLeftovers(n.ledger(), e.fingerprint(), List.of()),
          EpisodeWriter.context(n.name(), e))) {
        step.apply(draft);
      }
    } catch (RenderException ex) {
      throw new IllegalStateException("undoing what an episode holds renders no template", ex);
    }
    draft.ledger(draft.ledger().released(e.fingerprint(), now));
    return draft.toNode();
  }
}
