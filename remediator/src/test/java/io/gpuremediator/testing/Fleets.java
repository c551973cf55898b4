package io.gpuremediator.testing;

import io.gpuremediator.decision.DecisionLog;
import io.gpuremediator.episode.DecisionListener;
import io.gpuremediator.episode.EngineBuilder;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.FleetStore;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.safety.SafetyListener;
import io.gpuremediator.safety.SelectedFleet;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/** An in-memory GPU fleet with the real engine and safety gate, for tests of the limits. */
public final class Fleets {
  private Fleets() {}

  /** {@code count} Ready GPU nodes named gpu-node-0..N-1. */
  public static InMemoryCluster nodes(int count) {
    return new InMemoryCluster(IntStream.range(0, count)
        .mapToObj(i -> booted(NodeInfo.named("gpu-node-" + i, Map.of("nvidia.com/gpu.present", "true")), "boot-1")).toList());
  }

  /** Labels the node (as its installer does: the GPU Operator, a node pool). */
  public static void label(InMemoryCluster cluster, String node, String key, String value) {
    try {
      cluster.modifyNode(node, n -> {
        Map<String, String> labels = new HashMap<>(n.labels());
        labels.put(key, value);
        return new Cluster.Edited<>(new NodeInfo(n.name(), labels, n.annotations(), n.taints(), n.unschedulable(),
            n.conditions(), n.internalIps(), n.bootId(), n.resourceVersion(), n.ledger(), n.ledgerFault()), null);
      });
    } catch (ClusterException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The kubelet after a reboot: the node Ready with a new bootID. */
  public static void reboot(InMemoryCluster cluster, String node) {
    try {
      cluster.modifyNode(node, n -> new Cluster.Edited<>(booted(n, n.bootId() + "+"), null));
    } catch (ClusterException e) {
      throw new IllegalStateException(e);
    }
  }

  private static NodeInfo booted(NodeInfo n, String bootId) {
    return new NodeInfo(n.name(), n.labels(), n.annotations(), n.taints(), n.unschedulable(), n.conditions(),
        n.internalIps(), bootId, n.resourceVersion(), n.ledger(), n.ledgerFault());
  }

  /** Limits from their config spellings. */
  public static SafetyLimits limits(String maxUnavailable, String rate, int breakerNodes, String cooldown) {
    return new SafetyLimits(CountOrPercent.parse(maxUnavailable).value(), Rate.parse(rate).value(), breakerNodes,
        Duration.ofMinutes(10), Optional.empty(), Durations.parse(cooldown).value());
  }

  /** A loaded gate over the cluster's GPU nodes. */
  public static FleetGate gate(InMemoryCluster cluster, SafetyLimits limits, FleetStore store, Clock clock) {
    FleetGate gate = new FleetGate(limits, store, SelectedFleet.of(cluster, LabelSelector.parse("").value()),
        SafetyListener.NONE, clock);
    try {
      gate.load();
    } catch (FleetStore.FleetStoreException e) {
      throw new AssertionError(e);
    }
    return gate;
  }

  /** The engine over the cluster, deciding with the gate. */
  public static RemediationEngine engine(InMemoryCluster cluster, PlaybookSet playbooks, FleetGate gate, boolean dryRun,
      DecisionListener listener, Clock clock) {
    return EngineBuilder.of(() -> playbooks, cluster, new NodeResolver(List.of("node"),
        LabelSelector.parse("nvidia.com/gpu.present=true").value(), cluster), clock).dryRun(dryRun).gate(gate)
        .listener(listener).build();
  }

  /** A listener keeping decisions. */
  public static DecisionLog log() {
    return new DecisionLog(100_000);
  }

  /** A fresh in-memory store. */
  public static InMemoryFleetStore store() {
    return new InMemoryFleetStore();
  }
}
