package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuremediator.node.ChangeLog;
import io.gpuremediator.node.LedgerFault;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.node.Taint;
import io.gpuremediator.state.ClaimKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The nodes as the remediator reads them: each watched node converted once per change, by name and by InternalIP, and
 * the answers of our own writes that the watch has not delivered yet. Fed by {@link NodeWatch}; written to by the
 * writes of {@link Fabric8Cluster}.
 */
final class NodeCache {
  private final Map<String, NodeInfo> byName = new ConcurrentHashMap<>();
  /**
   * Our own writes' answers the watch has not delivered yet: the next edit of the node starts from them. The
   * informers' stores hold every other Node; a second full copy of each would cost ~10 KB per node.
   */
  private final Map<String, Node> ownWrites = new ConcurrentHashMap<>();
  private final Map<String, String> nameByIp = new ConcurrentHashMap<>();
  /** Room for the changes of a busy minute of a large fleet; a count further behind counts every node again. */
  private static final int CHANGES_KEPT = 16_384;

  private final ChangeLog changes = new ChangeLog(CHANGES_KEPT);
  private volatile Consumer<String> episodesChanged = name -> { };
  private volatile Function<String, Optional<String>> cliques = name -> Optional.empty();
  private final LedgerSigning signing;

  /** A cache whose ledgers {@code signing} verifies, and hands out as ours or not. */
  NodeCache(LedgerSigning signing) {
    this.signing = signing;
  }

  /** Takes in a node delivered by a watch or answered to one of our writes; an older version than the cached is ignored. */
  void put(Node node) {
    String name = node.getMetadata().getName();
    String version = node.getMetadata().getResourceVersion();
    NodeInfo known = byName.get(name);
    if (known != null && isNewer(known.resourceVersion(), version)) {
      return;
    }
    Node own = ownWrites.get(name);
    if (own != null && own != node && !isNewer(own.getMetadata().getResourceVersion(), version)) {
      ownWrites.remove(name, own); // the watch caught up with our write
    }
    NodeInfo info = NodeMapper.toInfo(node, signing.seal()).withDraClique(cliques.apply(name));
    NodeInfo previous = byName.put(info.name(), info);
    changes.changed(info.name()); // after the put: whoever reads the new generation finds the node as it is now
    if (previous != null) {
      previous.internalIps().stream().filter(ip -> !info.internalIps().contains(ip))
          .forEach(ip -> nameByIp.remove(ip, info.name()));
    }
    info.internalIps().forEach(ip -> nameByIp.put(ip, info.name()));
    boolean owes = !info.ledger().episodes().isEmpty() || !info.ledger().unheld().isEmpty(); // held things to give back
    if (owes && (previous == null || !previous.ledger().equals(info.ledger()) || rebootMoved(previous, info)
        || takenBack(previous, info)) || arrivedWithOwnTaint(previous, info)) {
      episodesChanged.accept(info.name());
    }
  }

  /** Caches the answer of one of our writes, and starts the node's next edit from it until the watch catches up. */
  Node putOwn(Node written) {
    ownWrites.put(written.getMetadata().getName(), written);
    put(written);
    return written;
  }

  /** Forgets a node no watch holds any more; a node that had episodes is announced, as a change is. */
  void remove(String name) {
    ownWrites.remove(name);
    NodeInfo gone = byName.remove(name);
    changes.changed(name);
    if (gone != null) {
      gone.internalIps().forEach(ip -> nameByIp.remove(ip, gone.name()));
      if (!gone.ledger().episodes().isEmpty()) {
        episodesChanged.accept(name); // a replacement or a reboot ends with the Node gone: told now, not at the next tick
      }
    }
  }

  /** Our last write's answer, when the watch has not delivered it yet. */
  Optional<Node> ownWrite(String name) {
    return Optional.ofNullable(ownWrites.get(name));
  }

  /** The node as the cache converted it when it holds this very version (an edit starts from it), else converted now. */
  NodeInfo info(Node node) {
    String version = node.getMetadata().getResourceVersion();
    NodeInfo known = byName.get(node.getMetadata().getName());
    return signing.handOut(known != null && version != null && !version.isEmpty() && version.equals(known.resourceVersion())
        ? known : NodeMapper.toInfo(node, signing.seal()).withDraClique(cliques.apply(node.getMetadata().getName())));
  }

  /** Where each node's published NVLink clique is read ({@link CliqueWatch}). */
  void cliquesFrom(Function<String, Optional<String>> cliques) {
    this.cliques = cliques;
  }

  /** The node's published clique changed: its cached info says so, and the fleet's counts see it changed. */
  void cliqueChanged(String name) {
    if (byName.computeIfPresent(name, (n, info) -> info.withDraClique(cliques.apply(n))) != null) {
      changes.changed(name);
    }
  }

  Optional<NodeInfo> node(String name) {
    return Optional.ofNullable(byName.get(name)).map(signing::handOut);
  }

  Optional<NodeInfo> nodeWithInternalIp(String ip) {
    return Optional.ofNullable(nameByIp.get(ip)).map(byName::get).map(signing::handOut);
  }

  List<NodeInfo> nodes() {
    List<NodeInfo> all = new ArrayList<>(byName.size());
    byName.values().forEach(n -> all.add(signing.handOut(n)));
    return all;
  }

  /** The nodes whose ledger is unsigned (an earlier release's, or not ours). */
  List<String> unsigned() {
    return byName.values().stream().filter(n -> n.ledgerFault().filter(f -> f.kind() == LedgerFault.Kind.UNSIGNED)
        .isPresent()).map(NodeInfo::name).toList();
  }

  boolean holdsAll(List<String> names) {
    return byName.keySet().containsAll(names);
  }

  long generation() {
    return changes.generation();
  }

  /** The nodes changed after generation {@code from} up to {@code to}; empty when the log no longer holds them all. */
  Optional<List<String>> changedBetween(long from, long to) {
    return changes.between(from, to);
  }

  void onEpisodesChanged(Consumer<String> listener) {
    this.episodesChanged = listener;
  }

  /**
   * Whether the node is new, or its taints changed, and it carries a taint of ours that no episode holds: a node that
   * registered with the pre-flight taint waits for the gate.
   */
  private static boolean arrivedWithOwnTaint(NodeInfo previous, NodeInfo now) {
    if (previous != null && previous.taints().equals(now.taints())) {
      return false;
    }
    for (Taint t : now.taints()) {
      if (t.key().startsWith(NodeKeys.DOMAIN)
          && now.ledger().claim(ClaimKey.taint(t.key(), t.effect().apiName())).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** Whether the node was uncordoned or lost a taint: what a human taking it back from an episode does. */
  private static boolean takenBack(NodeInfo before, NodeInfo now) {
    return before.unschedulable() && !now.unschedulable() || !now.taints().containsAll(before.taints());
  }

  /** Whether the node booted or changed readiness: what a reboot step under way waits for. */
  private static boolean rebootMoved(NodeInfo before, NodeInfo now) {
    return !before.bootId().equals(now.bootId()) || before.isReady() != now.isReady();
  }

  /** Whether version {@code a} is later than {@code b} (our own write's answer can beat the watch event it causes). */
  static boolean isNewer(String a, String b) {
    try {
      return Long.parseLong(a) > Long.parseLong(b);
    } catch (NumberFormatException e) {
      return false; // resourceVersions are opaque in general; then the latest delivered wins
    }
  }
}
