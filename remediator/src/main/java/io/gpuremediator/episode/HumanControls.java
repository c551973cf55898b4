package io.gpuremediator.episode;

import io.gpuremediator.action.RenderException;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.NodeLedger.Episode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a human may do to a node's episodes through the API: release the node (run each episode's release
 * steps now, skipping diagnostics, and undo whatever else the episode still holds) or retry a failed step. Each is a decision with the reason given, and
 * runs holding the node's in-flight mark, so it never races the loop's own look at the node.
 */
public final class HumanControls {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final EpisodeLoop loop;
  private final Cluster cluster;
  private final Supplier<PlaybookSet> playbooks;

  /** Creates the controls over the loop's episodes. */
  public HumanControls(EpisodeLoop loop, Cluster cluster, Supplier<PlaybookSet> playbooks) {
    this.loop = loop;
    this.cluster = cluster;
    this.playbooks = playbooks;
  }

  /** How a request ended. */
  public enum Status {
    /** Done: see the decisions. */
    DONE,
    /** No such node. */
    UNKNOWN_NODE,
    /** The node has no episode (release) or no failed step (retry). */
    NOTHING_TO_DO,
    /** Another look at the node did not end in time, or a write was fenced out; try again. */
    BUSY,
    /** This instance does not lead. */
    NOT_LEADER,
    /** The release steps cannot run (a template renders a value its field rejects); nothing was written. */
    FAILED
  }

  /** The outcome and the decisions made. */
  public record Result(Status status, List<Decision> decisions, String message) {}

  /** Releases every episode of the node: its release steps run now, long ones (diagnose) skipped. */
  public Result release(String node, String reason, String who) {
    return onNode(node, (n, out) -> {
      if (n.ledger().episodes().isEmpty()) {
        return new Result(Status.NOTHING_TO_DO, List.of(), "node " + node + " has no episode");
      }
      PlaybookSet set = playbooks.get();
      for (Episode e : n.ledger().episodes().values()) {
        List<ActionSpec> steps = new ArrayList<>(set.named(e.playbook()).map(Playbook::onResolved).orElse(List.of()));
        steps.addAll(leftovers(n.ledger(), e.fingerprint(), steps));
        Episode releasing = e.with(e.progress().releasingFromStart());
        Optional<EpisodeWriter.Written> w = loop.writer().runSteps(node, e, steps, Phase.RESOLVED, Optional.empty(),
            "skipped: released by a human");
        if (w.isEmpty()) {
          return new Result(Status.BUSY, out, "the episode " + e.fingerprint() + " changed under the release; try again");
        }
        loop.writer().recordEvents(w.get().events());
        loop.releaseSlot(node);
        out.add(loop.decide(node, releasing, Reason.RELEASED_BY_HUMAN, "released by " + who + ": " + reason,
            w.get().records(), Stage.RELEASED));
      }
      return new Result(Status.DONE, out, "");
    });
  }

  /** Moves every failed episode of the node back before its failed step, which then runs again. */
  public Result retry(String node, String reason, String who) {
    return onNode(node, (n, out) -> {
      for (Episode e : n.ledger().episodes().values()) {
        Progress p = e.progress();
        if (!p.stage().isFailed() || (p.stage() == Stage.NEEDS_HUMAN && !failedReplace(e))) {
          continue;
        }
        java.time.Instant now = loop.writer().now();
        int attempt = p.task().map(t -> t.attempt() + 1).orElse(2);
        String note = "retry (attempt " + attempt + ") requested by " + who + ": " + reason;
        // A drain goes back through max_draining, a replacement through the replacement budget (and finds an instance
        // already marked without marking it again); diagnostics start again at once, as a new Job.
        Episode again = p.stage() == Stage.DIAGNOSTICS_FAILED
            ? e.with(p.inStage(Stage.DIAGNOSING, now).running(new Progress.Task("diagnose", p.next(), now, attempt, "",
                Optional.empty())).noted(note))
            : e.with(p.inStage(Stage.QUARANTINED, now).at(p.next()).noted(note));
        if (loop.writer().replace(node, e, again).isEmpty()) {
          return new Result(Status.BUSY, out, "the episode " + e.fingerprint() + " changed under the retry; try again");
        }
        out.add(loop.decide(node, again, Reason.STEP_RETRIED, "retry of the failed step (" + p.stage().code() + ": "
            + p.note() + ") requested by " + who + ": " + reason, List.of(), again.progress().stage()));
      }
      if (out.isEmpty()) {
        return new Result(Status.NOTHING_TO_DO, List.of(), "node " + node + " has no failed step to retry");
      }
      loop.kick(node);
      return new Result(Status.DONE, out, "");
    });
  }

  /** Whether the episode needs a human because its replace step failed (the cloud refused, timed out, no cloud). */
  private boolean failedReplace(Episode e) {
    return playbooks.get().named(e.playbook()).map(pb -> {
      java.util.List<io.gpuremediator.playbook.ActionSpec> list = io.gpuremediator.episode.Episodes.currentList(e, pb);
      return e.progress().next() < list.size()
          && list.get(e.progress().next()) instanceof io.gpuremediator.playbook.ActionSpec.ReplaceSpec;
    }).orElse(false);
  }

  /**
   * Undo steps for what the episode still holds that its release steps do not undo (a playbook without
   * on_resolved, like one that keeps a node for a human): its taints, its cordon and its labels. Conditions and
   * annotations have no undo kind and stay, as a human's record of what happened.
   */
  static List<ActionSpec> leftovers(NodeLedger ledger, String holder, List<ActionSpec> release) {
    List<ActionSpec> out = new ArrayList<>();
    ledger.claims().forEach((text, claim) -> {
      if (!claim.holders().contains(holder)) {
        return;
      }
      ClaimKey key = ClaimKey.parse(text);
      if (key instanceof ClaimKey.Cordon && release.stream().noneMatch(a -> a instanceof ActionSpec.UncordonSpec)) {
        out.add(new ActionSpec.UncordonSpec(false));
      } else if (key instanceof ClaimKey.TaintClaim taint) {
        Optional<TaintEffect> effect = TaintEffect.fromApiName(taint.effect());
        if (effect.isPresent()
            && release.stream().noneMatch(a -> a instanceof ActionSpec.UntaintSpec u && u.key().equals(taint.key()))) {
          out.add(new ActionSpec.UntaintSpec(taint.key(), effect, false));
        }
      } else if (key instanceof ClaimKey.LabelClaim label
          && release.stream().noneMatch(a -> a instanceof ActionSpec.UnlabelSpec u && u.key().equals(label.key()))) {
        out.add(new ActionSpec.UnlabelSpec(label.key(), false));
      }
    });
    return out;
  }

  @FunctionalInterface
  private interface OnNode {
    Result apply(NodeInfo node, List<Decision> out) throws ClusterException, RenderException;
  }

  private Result onNode(String node, OnNode work) {
    Optional<NodeInfo> n = cluster.node(node);
    if (n.isEmpty()) {
      return new Result(Status.UNKNOWN_NODE, List.of(), "node " + node + " does not exist");
    }
    if (!loop.isLeading()) {
      return new Result(Status.NOT_LEADER, List.of(), "this instance does not lead");
    }
    return loop.exclusively(node, WAIT, () -> {
      List<Decision> out = new ArrayList<>();
      try {
        return work.apply(cluster.node(node).orElse(n.get()), out);
      } catch (ClusterException e) {
        return new Result(Status.BUSY, out, e.getMessage());
      } catch (RenderException e) {
        return new Result(Status.FAILED, out, e.getMessage());
      }
    }).orElse(new Result(Status.BUSY, List.of(), "another change to node " + node + " is under way; try again"));
  }
}
