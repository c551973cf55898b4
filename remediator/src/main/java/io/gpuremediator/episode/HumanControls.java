package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.LongStep;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a human may do to a node's episodes through the API: release the node (run each episode's release steps now,
 * skipping long ones, and undo whatever else the episode still holds) or retry a failed step. Each is a move of the
 * {@link Transition} table and a decision with the reason given, made holding the node, so it never races the loop's
 * own look at it or a webhook's write.
 */
public final class HumanControls {
  private static final Logger LOGGER = LoggerFactory.getLogger(HumanControls.class);
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final EpisodeLoop loop;
  private final Cluster cluster;
  private final Supplier<PlaybookSet> playbooks;

  /** Creates the controls over the loop's episodes. */
  public HumanControls(EpisodeLoop loop, Cluster cluster, Supplier<PlaybookSet> playbooks) {
    this.loop = loop;
    this.cluster = cluster;
    this.playbooks = () -> loop.withBuiltIn(playbooks.get());
  }

  /** How a request ended. */
  public enum Status {
    /** Done: see the decisions. */
    DONE,
    /** No such node. */
    UNKNOWN_NODE,
    /** The node has no episode (release) or no failed step (retry). */
    NOTHING_TO_DO,
    /** Another change to the node did not end in time, or a write was fenced out; try again. */
    BUSY,
    /** This instance does not lead. */
    NOT_LEADER,
    /** The release steps cannot run (a template renders a value its field rejects); nothing was written. */
    FAILED
  }

  /** The outcome and the decisions made. */
  public record Result(Status status, List<Decision> decisions, String message) {}

  /** Releases every episode of the node: its release steps run now, long ones skipped. */
  public Result release(String node, String reason, String who) {
    return onNode(node, (n, out) -> {
      if (n.ledger().episodes().isEmpty()) {
        return new Result(Status.NOTHING_TO_DO, List.of(), "node " + node + " has no episode");
      }
      PlaybookSet set = playbooks.get();
      EpisodeMoves moves = loop.moves();
      for (Episode e : n.ledger().episodes().values()) {
        List<ActionSpec> steps = new ArrayList<>(set.named(e.playbook()).map(Playbook::onResolved).orElse(List.of()));
        steps.addAll(ActionRegistry.undoLeftovers(n.ledger(), e.fingerprint(), steps));
        Optional<EpisodeWriter.Written> w = moves.runSteps(node, e, Transition.RELEASED_BY_HUMAN, steps, Phase.RESOLVED,
            Optional.empty(), "skipped: released by a human");
        if (w.isEmpty()) {
          return new Result(Status.BUSY, out, "the episode " + e.fingerprint() + " changed under the release; try again");
        }
        giveBack(node, e);
        out.add(moves.decided(node, e.with(e.progress().releasingFromStart()), Transition.RELEASED_BY_HUMAN, null,
            "released by " + who + ": " + reason, w.get().records(), Stage.RELEASED));
      }
      return new Result(Status.DONE, out, "");
    });
  }

  /** Gives back what the released episode holds outside its node; a failure leaves its rules for a human. */
  private void giveBack(String node, Episode e) {
    try {
      ActionRegistry.giveBack(node, e, loop.ports());
    } catch (ClusterException ex) {
      LOGGER.warn("episode {} on node {} was released, but its DeviceTaintRules {} could not all be deleted: {}",
          e.fingerprint(), node, e.fenced(), ex.getMessage());
    }
  }

  /** Moves every failed episode of the node back before its failed step, which then runs again. */
  public Result retry(String node, String reason, String who) {
    return onNode(node, (n, out) -> {
      for (Episode e : n.ledger().episodes().values()) {
        Progress p = e.progress();
        Optional<ActionSpec> atCursor = stepAtCursor(e);
        Optional<LongStep<ActionSpec>> failedStep = atCursor.flatMap(ActionRegistry::longStep);
        if (!p.stage().isFailed()
            || (p.stage() == Stage.NEEDS_HUMAN && failedStep.filter(k -> k.stages().failed() == Stage.NEEDS_HUMAN).isEmpty())) {
          continue;
        }
        Instant now = loop.moves().now();
        int attempt = p.task().map(t -> t.attempt() + 1).orElse(2);
        String note = "retry (attempt " + attempt + ") requested by " + who + ": " + reason;
        // A step with a budget or a slot to take goes back through its start (a replacement finds an instance already
        // marked without marking it again); one without starts again at once, as a new attempt (a new Job).
        Optional<LongStep<ActionSpec>> atOnce = failedStep.filter(k -> !k.retriesThroughStart());
        Episode again = atOnce.isPresent()
            ? e.with(p.inStage(atOnce.get().stages().running(), now).running(new Progress.Task(
                atCursor.get().kind(), p.next(), now, attempt, "", Optional.empty())).noted(note))
            : e.with(p.inStage(Stage.QUARANTINED, now).at(p.next()).noted(note));
        Optional<Decision> decided = loop.moves().moveDecided(node, e, Transition.RETRIED, again,
            failedStep.map(LongStep::stages), null, "retry of the failed step (" + p.stage().code() + ": " + p.note()
                + ") requested by " + who + ": " + reason);
        if (decided.isEmpty()) {
          return new Result(Status.BUSY, out, "the episode " + e.fingerprint() + " changed under the retry; try again");
        }
        out.add(decided.get());
      }
      if (out.isEmpty()) {
        return new Result(Status.NOTHING_TO_DO, List.of(), "node " + node + " has no failed step to retry");
      }
      loop.kick(node);
      return new Result(Status.DONE, out, "");
    });
  }

  /** The step at the episode's cursor, when its playbook has one there (the step that failed). */
  private Optional<ActionSpec> stepAtCursor(Episode e) {
    return playbooks.get().named(e.playbook()).flatMap(pb -> {
      List<ActionSpec> list = Episodes.currentList(e, pb);
      return e.progress().next() < list.size() ? Optional.of(list.get(e.progress().next())) : Optional.empty();
    });
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
    AtomicReference<Result> result = new AtomicReference<>();
    boolean held = loop.exclusion().holding(node, WAIT, () -> {
      List<Decision> out = new ArrayList<>();
      try {
        result.set(work.apply(cluster.node(node).orElse(n.get()), out));
      } catch (ClusterException e) {
        result.set(new Result(Status.BUSY, out, e.getMessage()));
      } catch (RenderException e) {
        result.set(new Result(Status.FAILED, out, e.getMessage()));
      }
    });
    return held ? result.get()
        : new Result(Status.BUSY, List.of(), "another change to node " + node + " is under way; try again");
  }
}
