package io.gpuremediator.episode;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.state.Episode;
import java.util.List;
import java.util.Optional;

/**
 * {@code defer_to} for a running episode: before its next long step, a node that now shows a sign that another system
 * owns its repair stops the episode there, for a human, the node as it is (a release under way goes on). Two repairers
 * must not drain and reboot one node; the new episodes such a node would start are refused by the engine.
 */
final class OtherRepairer {
  private final Cluster cluster;
  private final List<DeferRule> rules;
  private final EpisodeMoves moves;

  OtherRepairer(Cluster cluster, List<DeferRule> rules, EpisodeMoves moves) {
    this.cluster = cluster;
    this.rules = List.copyOf(rules);
    this.moves = moves;
  }

  /** Whether the episode stopped for another repairer before its next long step (needs_human, decided deferred). */
  boolean stopsBeforeStep(String node, Episode e) throws ClusterException {
    Optional<String> sign = rules.isEmpty() || e.progress().releasing() ? Optional.empty()
        : cluster.node(node).flatMap(n -> DeferRule.firstMatch(rules, n));
    if (sign.isEmpty()) {
      return false;
    }
    moves.needsHuman(node, e, Reason.DEFERRED, node + " shows " + sign.get() + ": another system owns its repair"
        + " (defer_to); our steps stop before the next, the node as it is, until a human releases it");
    return true;
  }
}
