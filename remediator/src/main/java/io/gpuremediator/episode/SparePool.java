package io.gpuremediator.episode;

import io.gpuremediator.action.DrainAction;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.SparePolicy;
import io.gpuremediator.node.Taint;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.PastEpisode;
import io.gpuremediator.threads.DaemonThreads;
import io.gpuremediator.workload.Workloads;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hot spare pool ({@code spares}), tended at each scan of the loop's leader. The pool holds as many spares as
 * {@code count} less the nodes of its selection our episodes hold out of service: a quarantine releases a spare at the
 * next scan (its taint removed: it takes work), and a node whose episode ended returns as a spare while the pool is
 * short (the most recently released first; else any idle, Ready, schedulable node of the selection). A spare carries
 * only the spare taint, no claim of ours: it counts toward no budget, no episode holds it, and nothing remediates it
 * unless an alert names it (then it is remediated like any node, and counts as out, not as a spare, until its episode
 * ends). Each release and each spare taken is an Event on its node.
 */
final class SparePool {
  private static final Logger LOGGER = LoggerFactory.getLogger(SparePool.class);
  /** The most nodes one scan looks at for an idle one (each a pod list): the pool refills over scans. */
  private static final int CANDIDATES_A_SCAN = 8;

  private final SparePolicy policy;
  private final Cluster cluster;
  private final Workloads workloads;
  private final NodeEvents events;
  private volatile SparesNow held;
  /** The pool's own thread: its pod lists and node writes never hold up the loop's timer. */
  private final ExecutorService worker = Executors.newSingleThreadExecutor(DaemonThreads.named("remediator-spare-pool"));
  private final AtomicBoolean tending = new AtomicBoolean();

  SparePool(SparePolicy policy, Cluster cluster, Workloads workloads, NodeEvents events) {
    this.policy = policy;
    this.cluster = cluster;
    this.workloads = workloads;
    this.events = events;
    this.held = new SparesNow(policy.taintKey(), policy.count(), policy.count(), 0, List.of());
  }

  /** The pool as the last scan left it. */
  SparesNow held() {
    return held;
  }

  /**
   * Tends the pool on its own thread with the nodes of this scan; a scan that finds the last tending still under way
   * leaves it be (the next scan sees what it wrote).
   */
  void tendSoon(List<NodeInfo> nodes, Instant now) {
    if (!tending.compareAndSet(false, true)) {
      return;
    }
    try {
      worker.execute(() -> {
        try {
          tend(nodes, now);
        } catch (RuntimeException e) {
          LOGGER.warn("spare pool: tending failed: {}", e.toString(), e);
        } finally {
          tending.set(false);
        }
      });
    } catch (RejectedExecutionException e) { // stopped
      tending.set(false);
    }
  }

  /** Stops the pool's thread. */
  void close() {
    worker.shutdownNow();
  }

  /** One scan's tending: releases spares past the target, takes idle nodes as spares while short. */
  void tend(List<NodeInfo> nodes, Instant now) {
    List<NodeInfo> selected = nodes.stream().filter(policy::selects).filter(n -> !n.isExcluded()).toList();
    // A spare an alert named is under its episode: not a spare the pool can give, and one of the nodes out.
    List<NodeInfo> spares = selected.stream().filter(policy::isSpare).filter(n -> n.ledger().episodes().isEmpty())
        .sorted(Comparator.comparing(NodeInfo::name)).toList();
    long out = selected.stream().filter(n -> ClaimKey.anyTakesNodeOutOfService(n.ledger())).count();
    int target = (int) Math.max(0, policy.count() - out);
    List<String> pool = new ArrayList<>(spares.stream().map(NodeInfo::name).toList());
    for (int i = target; i < spares.size(); i++) {
      String name = spares.get(i).name();
      if (write(name, false)) {
        pool.remove(name);
        events.recordAll(List.of(new NodeEvent(name, "Normal", "SpareReleased", name + " left the spare pool and takes work:"
            + " " + out + " nodes of the pool's selection are out of service (pool " + target + " of " + policy.count()
            + ")", now)));
      }
    }
    if (pool.size() < target) {
      for (NodeInfo n : candidates(selected)) {
        if (pool.size() >= target) {
          break;
        }
        if (idle(n) && write(n.name(), true)) {
          pool.add(n.name());
          events.recordAll(List.of(new NodeEvent(n.name(), "Normal", "SpareHeld", n.name() + " is held as a spare ("
              + policy.taintKey() + ":NoSchedule; pool " + pool.size() + " of " + target + ")", now)));
        }
      }
    }
    held = new SparesNow(policy.taintKey(), policy.count(), target, (int) out, List.copyOf(pool));
  }

  /** Idle, Ready, schedulable nodes of the selection with no episode: the most recently released first. */
  private List<NodeInfo> candidates(List<NodeInfo> selected) {
    return selected.stream().filter(n -> !policy.isSpare(n) && n.isReady() && !n.unschedulable()
            && n.ledger().episodes().isEmpty() && n.ledgerFault().isEmpty())
        .sorted(Comparator.comparing(SparePool::lastReleased).reversed().thenComparing(NodeInfo::name))
        .limit(CANDIDATES_A_SCAN).toList();
  }

  private static Instant lastReleased(NodeInfo n) {
    return n.ledger().history().stream().map(PastEpisode::releasedAt).max(Comparator.naturalOrder()).orElse(Instant.EPOCH);
  }

  /** Whether no workload runs on the node (DaemonSet, mirror, finished and system pods aside). */
  private boolean idle(NodeInfo n) {
    try {
      return workloads.podsOn(n.name()).stream().noneMatch(DrainAction::movesByDefault);
    } catch (ClusterException e) {
      LOGGER.warn("spare pool: the pods of {} could not be listed: {}", n.name(), e.getMessage());
      return false;
    }
  }

  /** Adds ({@code spare}) or removes the spare taint; false when the write failed (tried again at the next scan). */
  private boolean write(String node, boolean spare) {
    try {
      return cluster.modifyNode(node, n -> {
        List<Taint> taints = new ArrayList<>(n.taints().stream().filter(t -> !t.key().equals(policy.taintKey())).toList());
        if (spare) {
          taints.add(policy.taint());
        }
        return new Cluster.Edited<>(n.withTaints(taints), true);
      });
    } catch (ClusterException e) {
      LOGGER.warn("spare pool: {} could not be {}: {}", node, spare ? "held as a spare" : "released", e.getMessage());
      return false;
    }
  }
}
