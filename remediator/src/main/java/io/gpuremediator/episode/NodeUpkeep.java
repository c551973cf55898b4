package io.gpuremediator.episode;

import io.gpuremediator.action.LongStep;
import io.gpuremediator.action.ReplaceAction;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Holding;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the loop does for a node besides advancing its steps: the silences and notifications its episodes are due, what
 * its ended episodes held to give back, and the end of an episode whose Node object is gone under a step that ends with
 * it.
 */
final class NodeUpkeep {
  private static final Logger LOGGER = LoggerFactory.getLogger(NodeUpkeep.class);

  private final Cluster cluster;
  private final EpisodeOutbound outbound;
  private final GiveBacks giveBacks;
  private final EpisodeMoves moves;
  private final GoneNodes gone;
  private final BooleanSupplier leading;

  NodeUpkeep(Cluster cluster, EpisodeOutbound outbound, GiveBacks giveBacks, EpisodeMoves moves, GoneNodes gone,
      BooleanSupplier leading) {
    this.cluster = cluster;
    this.outbound = outbound;
    this.giveBacks = giveBacks;
    this.moves = moves;
    this.gone = gone;
    this.leading = leading;
  }

  /** Whether the node has something its ended episodes held to give back now. */
  boolean giveBackDue(NodeInfo n, Instant now) {
    return giveBacks.due(n, now);
  }

  void tendQuietly(String node, PlaybookSet set) {
    try {
      tend(node, set);
    } catch (ClusterException ex) {
      LOGGER.warn("silences, notifications and give-backs of node {}: {} (retried on the next look)", node,
          ex.getMessage());
    }
  }

  /**
   * Creates or renews the silences and sends the notifications the node's episodes are due, on the node read fresh
   * (the cache may not have our own last write yet); gives back what its ended episodes held.
   */
  private void tend(String node, PlaybookSet set) throws ClusterException {
    Optional<NodeInfo> cached = cluster.node(node);
    Instant now = moves.now();
    boolean due = cached.isPresent() && (giveBacks.due(cached.get(), now) || cached.get().ledger().episodes().values()
        .stream().anyMatch(e -> set.named(e.playbook()).map(pb -> outbound.due(e, pb, now)).orElse(false)));
    if (!due) {
      return;
    }
    Optional<NodeInfo> fresh = cluster.freshNode(node);
    if (fresh.isEmpty() || !leading.getAsBoolean()) {
      return;
    }
    for (Episode e : fresh.get().ledger().episodes().values()) {
      Optional<Playbook> pb = set.named(e.playbook());
      if (pb.isPresent() && outbound.due(e, pb.get(), now)) {
        outbound.keep(node, e, pb.get());
      }
    }
    if (!fresh.get().ledger().unheld().isEmpty()) {
      giveBacks.giveBack(fresh.get());
    }
  }

  /**
   * A node whose step ends with it (a replacement, a reboot) is gone from the cache: when the API agrees, the episode is
   * over (replaced, or deleted under a reboot).
   */
  void endIfGone(String node) {
    GoneNodes.Last last = gone.last(node);
    if (last == null) {
      return;
    }
    try {
      if (cluster.freshNode(node).isPresent()) {
        return;
      }
    } catch (ClusterException ex) {
      LOGGER.warn("node {} being replaced: {} (asked again on the next look)", node, ex.getMessage());
      return;
    }
    gone.forget(node);
    giveBacks.giveBackNow(node, last.ledger().holdings().values().stream().map(Holding::held).toList());
    if (last.episode().progress().stage() == Stage.DEFERRED) {
      moves.ended(node, last.episode(), Transition.REPLACED_BY_OTHER, "the Node object is gone while the episode was"
          + " deferred to another repairer (defer_to): it replaced the node; its last ledger: " + LedgerSummary.of(last.ledger()));
    } else if (last.means() == LongStep.WhenNodeGone.PASSES) {
      moves.ended(node, last.episode(), Transition.REPLACED, "the Node object is gone: " + ReplaceAction.named(last.handle())
          + " was replaced; its last ledger: " + LedgerSummary.of(last.ledger()));
    } else {
      moves.ended(node, last.episode(), Transition.NODE_DELETED, "the Node object was deleted while "
          + last.episode().progress().task().map(Task::kind).orElse("a step") + " was under way; its last ledger: "
          + LedgerSummary.of(last.ledger()));
    }
  }
}
