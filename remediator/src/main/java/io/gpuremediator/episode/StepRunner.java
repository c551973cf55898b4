package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Carries one episode on by as many steps as it can now, immediate and long steps alike: the immediate steps up to the
 * next long one run in one write; a long step is started, then looked at until it passes or fails; at the end of the
 * list a resolved episode starts its release, and a release ends the episode. Every move goes through
 * {@link EpisodeMoves}; a long step is started and looked at by {@link LongSteps}.
 */
final class StepRunner {
  private static final int MAX_MOVES = 32; // the most steps one look advances an episode by, whatever the playbook

  private final Cluster cluster;
  private final EpisodeMoves moves;
  private final StepPorts ports;
  private final BooleanSupplier leading;
  private final OtherRepairer others;
  private final LongSteps longSteps;

  StepRunner(Cluster cluster, EpisodeMoves moves, StepPorts ports, BooleanSupplier leading, GoneNodes gone,
      OtherRepairer others) {
    this.others = others;
    this.cluster = cluster;
    this.moves = moves;
    this.ports = ports;
    this.leading = leading;
    this.longSteps = new LongSteps(cluster, moves, ports, gone);
  }

  /** Runs the episode's steps in order until one must wait: a long step under way, a slot, its alert, or a human. */
  void advance(String node, Episode start, PlaybookSet set) throws ClusterException {
    Episode e = start;
    for (int n = 0; n < MAX_MOVES && e != null && leading.getAsBoolean(); n++) {
      Progress p = e.progress();
      if (p.stage().isFailed()) {
        return;
      }
      Optional<Playbook> pb = set.named(e.playbook());
      if (pb.isEmpty()) {
        moves.decisions().noticeOnce(node, e, Reason.PLAYBOOK_MISSING, "playbook " + e.playbook() + " is not loaded; the"
            + " episode waits for it or for a human's release");
        return;
      }
      List<ActionSpec> list = Episodes.currentList(e, pb.get());
      Instant now = moves.now();
      if (p.stage() == Stage.DEFERRED) {
        e = others.look(node, e, pb.get());
      } else if (p.task().isPresent()) {
        e = longSteps.look(node, e, pb.get(), list, p.task().get(), set, now, n > 0); // n > 0: e is our own write's, just now
      } else if (p.next() >= list.size()) {
        e = endOfList(node, e, pb.get());
      } else if (!list.get(p.next()).isLongStep() || list.get(p.next()).dryRun()) {
        e = runImmediate(node, e, pb.get(), list);
      } else {
        e = others.defersBeforeStep(node, e) ? null : longSteps.start(node, e, pb.get(), list.get(p.next()), set, now);
      }
    }
  }

  /** The list is done: a firing episode waits for its alert (or starts its release); a release ends the episode. */
  private Episode endOfList(String node, Episode e, Playbook playbook) throws ClusterException {
    Progress p = e.progress();
    if (!p.releasing() && returnedToService(node, e, playbook)) {
      release(node, e, "the actions of " + playbook.name() + " returned " + (playbook.takesNodeOutOfService() ? "the node"
          : "its fenced GPUs") + " to service (its diagnostics passed); the episode is over without waiting for its alert");
      return null;
    }
    if (!p.releasing()) {
      return p.resolved() ? moves.quietly(node, e, Transition.RESOLVED, e.with(p.releasingFromStart()), Optional.empty())
          .orElse(null) : null;
    }
    release(node, e, "every release step of " + playbook.name() + " ran; the episode is over");
    return null;
  }

  /**
   * Whether the actions, done, gave the node back: they take it out of service and the episode holds nothing that does
   * (untainted, uncordoned after a repair and a passing diagnose); or they fence a GPU, and it is unfenced.
   */
  private boolean returnedToService(String node, Episode e, Playbook playbook) {
    return playbook.takesNodeOutOfService() ? !ClaimKey.keepsOutOfService(cluster.ledgerOf(node), e.fingerprint())
        : playbook.fencesGpu() && e.fenced().isEmpty();
  }

  /** Ends the episode as released: what it still holds is given back, the transition table says the rest. */
  private void release(String node, Episode e, String why) throws ClusterException {
    if (runSteps(node, e, Transition.RELEASED, List.of(), Optional.empty()).isPresent()) {
      String left = String.join("; ", ActionRegistry.giveBack(node, e, ports));
      moves.decided(node, e, Transition.RELEASED, null, left.isEmpty() ? why : why + "; " + left, List.of(), Stage.RELEASED);
    }
  }

  /** Runs the immediate steps from the cursor up to the next long step, in one write. */
  private Episode runImmediate(String node, Episode e, Playbook playbook, List<ActionSpec> list) throws ClusterException {
    Progress p = e.progress();
    int stop = p.next();
    while (stop < list.size() && (!list.get(stop).isLongStep() || list.get(stop).dryRun())) {
      stop++;
    }
    Episode next = e.with(p.at(stop));
    Optional<EpisodeWriter.Written> w = runSteps(node, e, Transition.STEPS_RAN, list.subList(p.next(), stop),
        Optional.of(next));
    if (w.isEmpty()) {
      return null;
    }
    moves.decided(node, next, Transition.STEPS_RAN, null, "steps " + (p.next() + 1) + " to " + stop + " of "
        + (p.releasing() ? "on_resolved" : "actions") + " of " + playbook.name() + " ran", w.get().records(), p.stage());
    Episode written = w.get().episode().orElse(null); // what these steps queued goes out before the next stage change
    return written == null ? null : moves.sendOwed(node, written, playbook);
  }

  /** Runs immediate steps; a template that renders an invalid value stops the episode for a human. */
  private Optional<EpisodeWriter.Written> runSteps(String node, Episode e, Transition t, List<ActionSpec> specs,
      Optional<Episode> after) throws ClusterException {
    Phase phase = e.progress().releasing() ? Phase.RESOLVED : Phase.FIRING;
    try {
      return moves.runSteps(node, e, t, specs, phase, after, "");
    } catch (RenderException ex) {
      moves.needsHuman(node, e, Reason.TEMPLATE_INVALID, ex.getMessage());
      return Optional.empty();
    }
  }
}
