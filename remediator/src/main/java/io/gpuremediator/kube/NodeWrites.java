package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.node.Cluster.Edited;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node is written: read (the cache first, then fresh), edited, and PUT back with its resourceVersion, status before
 * spec, a 409 retried with a fresh read; each answer cached as our own write so that the next edit starts from it.
 */
final class NodeWrites {
  private static final Logger LOGGER = LoggerFactory.getLogger(NodeWrites.class);
  private static final int MAX_CONFLICT_RETRIES = 5;

  private final KubernetesClient client;
  private final NodeCache cache;
  private final NodeWatch watch;
  private final LedgerSigning signing;
  private final ApiThrottle throttle;

  NodeWrites(KubernetesClient client, NodeCache cache, NodeWatch watch, LedgerSigning signing, ApiThrottle throttle) {
    this.client = client;
    this.cache = cache;
    this.watch = watch;
    this.signing = signing;
    this.throttle = throttle;
  }

  /**
   * Edits node {@code name} and writes what the edit changed.
   *
   * <p>The first attempt starts from the watch cache, as controllers do: a stale cache fails with 409 and the next attempt
   * reads the node fresh and edits it again. The conditions the edit sets are written first (the status subresource), then
   * the metadata and spec with the ledger: the ledger records that the episode's node actions were done, so everything it
   * vouches for is stored before it. A write whose answer was lost (a timeout after the server applied it, a reset
   * connection) is then harmless: the retry finds the conditions set and writes the rest, or finds the episode and does
   * nothing.
   */
  <T> T modify(String name, Function<NodeInfo, Edited<T>> edit) throws ClusterException {
    // The first attempt starts from our last write, or the watch's cache.
    Node next = cache.ownWrite(name).or(() -> watch.stored(name)).orElse(null);
    for (int attempt = 1; ; attempt++) {
      boolean fromCache = attempt == 1 && next != null;
      Node fresh = next != null ? next : get(name);
      next = null;
      NodeInfo current = cache.info(fresh);
      Edited<T> edited = edit.apply(current);
      Map<String, NodeCondition> conditions = NodeMapper.changedConditions(current, edited.node());
      boolean specChanges = NodeMapper.specDiffers(current, edited.node());
      if (fromCache && conditions.isEmpty() && !specChanges) {
        // Nothing to write, as the cache sees it. The cache can be behind our own last write (its answer lost
        // to a timeout or a reset, its watch event not yet here): confirm on the server before saying so.
        Node server = get(name);
        if (!Objects.equals(server.getMetadata().getResourceVersion(), fresh.getMetadata().getResourceVersion())) {
          ownWrite(server);
          next = server;
          continue;
        }
      }
      String what = "update status of node " + name;
      try {
        Node written = writeConditions(fresh, current, conditions);
        if (written != fresh && NodeMapper.specDiffers(current, NodeMapper.toInfo(written, signing.seal()))) {
          // The node changed since the edit read it (a server that does not guard status writes by
          // resourceVersion lets this through): edit again on what is stored, never write a stale spec.
          next = written;
          continue;
        }
        what = "update node " + name;
        if (specChanges) {
          Node spec = NodeMapper.withSpec(written, edited.node(), signing.seal());
          ownWrite(throttle.write(() -> client.nodes().resource(spec).update()));
        }
      } catch (KubernetesClientException e) {
        retryOnConflict(e, attempt, what);
        continue;
      }
      return edited.result();
    }
  }

  /** Caches our write's answer, unless it took the node out of every watch: the watch's DELETED is not undone. */
  Node ownWrite(Node written) {
    if (watch.inView(written)) {
      return cache.putOwn(written);
    }
    cache.remove(written.getMetadata().getName());
    return written;
  }

  /** The node as the server stores it now; one that is gone fails, not retriably. */
  Node get(String name) throws ClusterException {
    try {
      Node node = throttle.read(() -> client.nodes().withName(name).get());
      if (node == null) {
        throw new ClusterException("node " + name + " no longer exists", false, null);
      }
      return node;
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("get node " + name, e);
    }
  }

  /**
   * Writes the status part: the conditions the edit decided, merged onto the node as read (the kubelet's
   * conditions kept), guarded by its resourceVersion; returns the node as stored after it (or as read when
   * nothing changed). A 409 means the node changed since the read: the caller reads and edits again.
   */
  private Node writeConditions(Node fresh, NodeInfo current, Map<String, NodeCondition> changed) {
    List<NodeCondition> merged = new ArrayList<>();
    current.conditions().forEach(c -> merged.add(changed.getOrDefault(c.type(), c)));
    changed.values().stream().filter(c -> current.condition(c.type()).isEmpty()).forEach(merged::add);
    if (merged.equals(current.conditions())) {
      return fresh;
    }
    Node status = NodeMapper.withConditions(fresh, current.withConditions(merged));
    return ownWrite(throttle.write(() -> client.nodes().resource(status).updateStatus()));
  }

  private void retryOnConflict(KubernetesClientException e, int attempt, String what) throws ClusterException {
    if (e.getCode() == 409 && attempt < MAX_CONFLICT_RETRIES) {
      LOGGER.debug("{}: conflict on attempt {}, re-reading", what, attempt);
      return;
    }
    throw ApiFailures.of(what, e);
  }
}
