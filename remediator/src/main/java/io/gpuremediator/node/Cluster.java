package io.gpuremediator.node;

import io.gpuremediator.state.NodeLedger;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The port to the Kubernetes API. Reads come from a watch-fed cache; writes read the node fresh,
 * apply a pure edit and write it back with optimistic concurrency (resourceVersion), retrying on
 * conflict. Implementations are synchronous and thread-safe.
 */
public interface Cluster {
  /** The cached node of this name. */
  Optional<NodeInfo> node(String name);

  /** The cached node's ledger; empty when the node is not cached. */
  default NodeLedger ledgerOf(String name) {
    return node(name).map(NodeInfo::ledger).orElse(NodeLedger.EMPTY);
  }

  /** The cached node with this InternalIP (normalised by {@link InternalIp#normalize}). */
  Optional<NodeInfo> nodeWithInternalIp(String ip);

  /**
   * The node read from the API now, not from the cache (the cache may be a watch event behind); empty when it
   * no longer exists. For a decision that acts outside the node and so cannot be fenced by the node's write.
   */
  Optional<NodeInfo> freshNode(String name) throws ClusterException;

  /**
   * Which machine the node is, read from the API now: its {@code spec.providerID} (the instance a replacement marks) and
   * {@code status.nodeInfo.systemUUID} (what its BMC's system must have); {@link NodeIdentity#UNKNOWN} when this port is not a
   * Kubernetes API (then nothing can be replaced or reset); throws when the node is gone, and (not transient) when
   * another node states the same providerID or systemUUID: a registering kubelet chooses both.
   */
  default NodeIdentity identity(String name) throws ClusterException {
    return NodeIdentity.UNKNOWN;
  }

  /**
   * The object of this kind whose status names the node ({@link NodeOwner.Kind#nodeField}: a NodeClaim's
   * {@code status.nodeName}, a Machine's {@code status.nodeRef}), read from the API now, in every namespace; empty when
   * there is none (or this port is not a Kubernetes API).
   */
  default Optional<NodeOwner> ownerOf(NodeOwner.Kind kind, String node) throws ClusterException {
    return Optional.empty();
  }

  /** The owner object of this kind, namespace (empty: cluster-scoped) and name, read from the API now. */
  default Optional<NodeOwner> owner(NodeOwner.Kind kind, String namespace, String name) throws ClusterException {
    return Optional.empty();
  }

  /**
   * Deletes the owner (background propagation, preconditioned on its uid); one already gone is fine. Its controller
   * does the rest: Karpenter drains and terminates the node, a MachineSet creates another Machine.
   */
  default void deleteOwner(NodeOwner owner) throws ClusterException {
    throw new ClusterException("cannot delete " + owner + ": this port is not a Kubernetes API", false, null);
  }

  /** Sets an annotation on the owner (a merge patch of its metadata). */
  default void annotateOwner(NodeOwner owner, String key, String value) throws ClusterException {
    throw new ClusterException("cannot annotate " + owner + ": this port is not a Kubernetes API", false, null);
  }

  /**
   * A node the cache does not hold because the watch does not cover it (it is outside {@code node_selector} and carries
   * none of our state), read once from the API now. Empty when no such node exists, or when the cache holds every node
   * (then a node it misses does not exist). Throws when the read fails or is over its rate.
   */
  default Optional<NodeInfo> unwatchedNode(String name) throws ClusterException {
    return Optional.empty();
  }

  /** Whether the cache holds every node of the cluster (the watch is not filtered): a node it misses does not exist. */
  default boolean holdsEveryNode() {
    return true;
  }

  /** Every cached node. */
  List<NodeInfo> nodes();

  /** Whether the cache has synced and the API is reachable. */
  boolean isReady();

  /** A number that changes whenever any cached node changes: counts over the fleet can be reused until it moves. */
  long generation();

  /**
   * The nodes whose cached copy changed (or went) after generation {@code from} up to {@code to}, as
   * {@link ChangeLog#between}; empty when not known, and then a count over the fleet counts every node again.
   */
  default Optional<List<String>> changedBetween(long from, long to) {
    return Optional.empty();
  }

  /**
   * Reads the node fresh, applies {@code edit} (possibly more than once, on conflict) and writes the
   * result: labels, annotations, taints, cordon and ledger in one update, conditions in one status
   * update; nothing when nothing changed.
   *
   * @return the result of the edit that was written
   */
  <T> T modifyNode(String name, Function<NodeInfo, Edited<T>> edit) throws ClusterException;

  /** Records an Event on the node. */
  void recordEvent(NodeEvent event) throws ClusterException;

  /** The node as the edit wants it, and what the edit wants to return. */
  record Edited<T>(NodeInfo node, T result) {}
}
