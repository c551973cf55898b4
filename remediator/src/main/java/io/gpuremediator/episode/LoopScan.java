package io.gpuremediator.episode;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The loop's timer look over every node: counts the episodes per stage, the GPUs fenced and the oldest step of each kind
 * (for the metrics), and names the nodes with work to do (a step due, something owed outside, a give-back due, a human's
 * override, a newcomer for the pre-flight gate, a node gone with episodes).
 */
final class LoopScan {
  private final Cluster cluster;
  private final Supplier<PlaybookSet> playbooks;
  private final Supplier<List<NodeInfo>> selected;
  private final PreflightGate preflight;
  private final NodeUpkeep upkeep;
  private final EpisodeOutbound outbound;
  private final EpisodeMoves moves;
  private final GoneNodes gone;
  private final Optional<SparePool> spares;

  LoopScan(Cluster cluster, Supplier<PlaybookSet> playbooks, Supplier<List<NodeInfo>> selected, PreflightGate preflight,
      NodeUpkeep upkeep, EpisodeOutbound outbound, EpisodeMoves moves, GoneNodes gone, Optional<SparePool> spares) {
    this.cluster = cluster;
    this.playbooks = playbooks;
    this.selected = selected;
    this.preflight = preflight;
    this.upkeep = upkeep;
    this.outbound = outbound;
    this.moves = moves;
    this.gone = gone;
    this.spares = spares;
  }

  /**
   * Looks over every node once, reports the counts, and, when this instance leads, hands {@code kick} each node with work.
   *
   * @return the names of the nodes the cluster holds now
   */
  Set<String> scan(boolean lead, Consumer<String> kick) {
    Map<Stage, Integer> counts = new EnumMap<>(Stage.class);
    int fenced = 0;
    Map<String, Instant> oldest = new TreeMap<>();
    PlaybookSet set = playbooks.get();
    Instant now = moves.now();
    Set<String> seen = new HashSet<>();
    Set<String> newcomers = new HashSet<>();
    if (lead) {
      selected.get().stream().filter(preflight::wants).forEach(n -> newcomers.add(n.name()));
    }
    for (NodeInfo n : cluster.nodes()) {
      seen.add(n.name());
      boolean work = upkeep.giveBackDue(n, now) || newcomers.contains(n.name());
      for (Episode e : n.ledger().episodes().values()) {
        counts.merge(e.progress().stage(), 1, Integer::sum);
        fenced += e.fenced().size();
        // A deferral is not a step under way (the other repairer's time; GpuRemediatorNodesNeedHuman watches it).
        if (!e.progress().stage().isFailed() && e.progress().stage() != Stage.DEFERRED) {
          e.progress().task().ifPresent(t -> oldest.merge(t.kind(), t.started(), (a, b) -> a.isBefore(b) ? a : b));
        }
        work |= Episodes.hasWork(e, set) || set.named(e.playbook()).map(pb -> outbound.due(e, pb, now)).orElse(false)
            || HumanOverride.removed(n, e).isPresent();
      }
      if (lead && work) {
        kick.accept(n.name());
      }
    }
    for (String node : gone.nodes()) {
      if (lead && !seen.contains(node)) {
        kick.accept(node);
      }
    }
    if (lead) {
      spares.ifPresent(pool -> pool.tendSoon(selected.get(), now));
    }
    moves.decisions().listener().stages(counts, fenced);
    moves.decisions().listener().oldestSteps(oldest);
    return seen;
  }
}
