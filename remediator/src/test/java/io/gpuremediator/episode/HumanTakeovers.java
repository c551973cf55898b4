package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.Cluster.Edited;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.state.ClaimKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The randomized tests' humans who take quarantined nodes back (uncordon, our taints removed), and what must hold after
 * every step: an episode a node was taken back from never puts back what the human removed (no claim of its holds a
 * cordon or a taint the node carries), and once it ended it never becomes active again.
 */
final class HumanTakeovers {
  /** The episodes (fingerprint@startsAt) a human took their node back from, by node. */
  private final Map<String, Set<String>> overridden = new HashMap<>();
  /** Those of them that have ended: they never come back. */
  private final Set<String> ended = new HashSet<>();

  /** Takes a random node with an episode and a cordon or taint of ours back; false when there is none. */
  boolean takeBack(InMemoryCluster cluster, Random random) {
    List<NodeInfo> held = cluster.nodes().stream().filter(n -> !n.ledger().episodes().isEmpty()
        && (n.unschedulable() || n.taints().stream().anyMatch(t -> t.key().startsWith(NodeKeys.DOMAIN)))).toList();
    if (held.isEmpty()) {
      return false;
    }
    NodeInfo n = held.get(random.nextInt(held.size()));
    // The episodes whose quarantine this takes back: those holding our cordon or a taint (not one that fenced a GPU only).
    n.ledger().episodes().values().stream().filter(e -> ClaimKey.keepsOutOfService(n.ledger(), e.fingerprint()))
        .forEach(e -> overridden.computeIfAbsent(n.name(), k -> new HashSet<>()).add(e.fingerprint() + "@" + e.startsAt()));
    try {
      cluster.modifyNode(n.name(), x -> new Edited<>(new NodeInfo(x.name(), x.labels(), x.annotations(),
          x.taints().stream().filter(t -> !t.key().startsWith(NodeKeys.DOMAIN)).toList(), false, x.conditions(),
          x.internalIps(), x.bootId(), x.resourceVersion(), x.ledger(), x.ledgerFault()), null));
    } catch (ClusterException e) {
      throw new AssertionError(e);
    }
    return true;
  }

  /** Whether a human took this node back during the sequence. */
  boolean tookBack(String node) {
    return overridden.containsKey(node);
  }

  void check(InMemoryCluster cluster, String where) {
    overridden.forEach((node, episodes) -> cluster.node(node).ifPresent(n -> {
      for (String episode : episodes) {
        String fp = episode.substring(0, episode.indexOf('@'));
        boolean active = n.ledger().episodes().values().stream()
            .anyMatch(e -> (e.fingerprint() + "@" + e.startsAt()).equals(episode));
        assertThat(active && ended.contains(episode)).as(where + ": episode " + episode + " on " + node
            + " active again after a human took the node back and it ended").isFalse();
        if (!active) {
          ended.add(episode);
        }
        // Claims are held by fingerprint: a new episode of the same alert (a new startsAt) holds them as its own.
        boolean renewed = n.ledger().episodes().values().stream()
            .anyMatch(e -> e.fingerprint().equals(fp) && !(e.fingerprint() + "@" + e.startsAt()).equals(episode));
        if (renewed) {
          continue;
        }
        n.ledger().claims().forEach((key, claim) -> {
          if (!claim.holders().contains(fp)) {
            return;
          }
          ClaimKey k = ClaimKey.parse(key);
          boolean back = k instanceof ClaimKey.Cordon && n.unschedulable()
              || k instanceof ClaimKey.TaintClaim t && n.taints().stream().anyMatch(x -> x.key().equals(t.key())
                  && x.effect().apiName().equals(t.effect()));
          assertThat(back).as(where + ": " + key + " put back on " + node + " for episode " + episode
              + ", which a human took the node back from").isFalse();
        });
      }
    }));
  }
}
