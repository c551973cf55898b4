package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.node.NodeKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node informers that feed the {@link NodeCache}. With a label selector (a {@code node_selector} of one
 * alternative), two: the selected nodes, so memory and start time follow the GPU fleet rather than the cluster, and the
 * nodes that carry our state ({@link NodeKeys#MANAGED_LABEL}, set with the ledger), so a node relabelled out of the
 * selector in the middle of an episode stays in view until the episode is over and its changes undone. Without one, a
 * single informer over every node.
 *
 * <p>A node is cached while any informer holds it and its newest version matches that informer's watch. A
 * label-filtered watch reports a node that stops matching as DELETED (as the API server does); that removes it unless
 * the other informer holds it and it still matches the other's watch. Each informer removes a node from its own store
 * before its handler runs; a copy the other still holds that no longer matches is that watch's DELETED on its way,
 * so whichever of two deletions is handled first removes the node, and the second finds nothing to do.
 */
final class NodeWatch implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(NodeWatch.class);
  /** Nodes per page of an informer's list, as client-go's reflector pages its lists. */
  private static final long LIST_PAGE = 500;

  private final KubernetesClient client;
  private final Optional<String> selector;
  private final NodeCache cache;
  private final List<SharedIndexInformer<Node>> informers = new ArrayList<>();
  /** What each informer's watch selects, by the labels of a node, in the order of {@link #informers}. */
  private final List<Predicate<Map<String, String>>> selects = new ArrayList<>();
  private volatile boolean caughtUp;
  private final CliqueWatch cliques;

  /**
   * @param selector the label selector of the nodes to watch, in the API's syntax; empty watches every node
   */
  NodeWatch(KubernetesClient client, Optional<String> selector, NodeCache cache) {
    this.client = client;
    this.selector = selector;
    this.cache = cache;
    this.cliques = new CliqueWatch(client, cache::cliqueChanged);
    cache.cliquesFrom(cliques::of);
  }

  /** Starts the informers without waiting for them; an API server that is down is retried forever. */
  void start() {
    // Listed 500 at a time, and each node's repeated strings shared as it is stored: 10,000 nodes listed whole
    // took more heap than the Deployment's limit gives (all of them parsed at once, before any was stored).
    if (selector.isEmpty()) {
      informers.add(client.nodes().withLimit(LIST_PAGE).runnableInformer(0));
      selects.add(labels -> true);
    } else {
      informers.add(client.nodes().withLabelSelector(selector.get()).withLimit(LIST_PAGE).runnableInformer(0));
      selects.add(LabelSelector.fromApiSelector(selector.get()).<Predicate<Map<String, String>>>map(l -> l::matches)
          .orElse(labels -> true));
      informers.add(client.nodes().withLabel(NodeKeys.MANAGED_LABEL, "true").withLimit(LIST_PAGE).runnableInformer(0));
      selects.add(labels -> "true".equals(labels.get(NodeKeys.MANAGED_LABEL)));
    }
    for (SharedIndexInformer<Node> informer : informers) {
      informer.itemStore(new CanonicalNodeStore());
      informer.exceptionHandler((started, t) -> {
        LOGGER.warn("node watch failed ({}); retrying", t.toString());
        return true;
      });
      informer.addEventHandler(handler(informer));
    }
    informers.forEach(SharedIndexInformer::start);
    cliques.start();
  }

  /**
   * Each informer's events reach the cache on that informer's own thread; one at a time here, so that a deletion's look
   * at the other informer's store and what it then does to the cache are one step: the other's deletion comes after.
   */
  private ResourceEventHandler<Node> handler(SharedIndexInformer<Node> own) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Node node) {
        synchronized (NodeWatch.this) {
          cache.put(node);
        }
      }

      @Override
      public void onUpdate(Node old, Node node) {
        synchronized (NodeWatch.this) {
          cache.put(node);
        }
      }

      @Override
      public void onDelete(Node node, boolean finalStateUnknown) {
        synchronized (NodeWatch.this) {
          Optional<Node> kept = heldByAnother(node, own);
          if (kept.isPresent()) {
            cache.put(kept.get()); // no longer matches this watch (its labels as they are now), still selected by the other
          } else {
            cache.remove(node.getMetadata().getName());
          }
        }
      }
    };
  }

  /**
   * The node as another informer than {@code except} holds it, when its newest version known here still matches that
   * informer's watch. A copy older than {@code deleted} whose labels no longer match is that watch's DELETED still on
   * its way: the node has left both, whichever deletion is handled first.
   */
  private Optional<Node> heldByAnother(Node deleted, SharedIndexInformer<Node> except) {
    String name = deleted.getMetadata().getName();
    for (int i = 0; i < informers.size(); i++) {
      Node held = informers.get(i) == except ? null : informers.get(i).getStore().getByKey(name);
      if (held == null) {
        continue;
      }
      Node newest = NodeCache.isNewer(deleted.getMetadata().getResourceVersion(), held.getMetadata().getResourceVersion())
          ? deleted : held;
      Map<String, String> labels = newest.getMetadata().getLabels() == null ? Map.of() : newest.getMetadata().getLabels();
      if (selects.get(i).test(labels)) {
        return Optional.of(newest);
      }
    }
    return Optional.empty();
  }

  /** Whether any of the watches selects the node as it is now (a write of ours can move a node out of view). */
  boolean inView(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    return selects.stream().anyMatch(s -> s.test(labels));
  }

  /** The node as the informers hold it, the latest version when two do. */
  Optional<Node> stored(String name) {
    Node latest = null;
    for (SharedIndexInformer<Node> informer : informers) {
      Node node = informer.getStore().getByKey(name);
      if (node != null && (latest == null || NodeCache.isNewer(node.getMetadata().getResourceVersion(),
          latest.getMetadata().getResourceVersion()))) {
        latest = node;
      }
    }
    return Optional.ofNullable(latest);
  }

  /**
   * Node {@code name}'s identity {@code id}, unless another watched node states the same {@code spec.providerID} or
   * {@code status.nodeInfo.systemUUID}: a kubelet writes both when it registers, so a second node stating them means
   * one of the two is not the machine it says, and nothing may be done to either machine on that word.
   */
  NodeIdentity unshared(String name, NodeIdentity id) throws ClusterException {
    Set<String> sharing = new TreeSet<>();
    for (SharedIndexInformer<Node> informer : informers) {
      for (Node node : informer.getStore().list()) {
        NodeIdentity other = NodeMapper.identity(node);
        boolean same = id.providerId().isPresent() && id.providerId().equals(other.providerId())
            || id.systemUuid().isPresent() && other.systemUuid().map(u -> u.equalsIgnoreCase(id.systemUuid().get()))
                .orElse(false);
        if (same && !name.equals(node.getMetadata().getName())) {
          sharing.add(node.getMetadata().getName());
        }
      }
    }
    if (!sharing.isEmpty()) {
      throw new ClusterException("node " + name + " states the providerID or systemUUID of node " + sharing.iterator()
          .next() + " too: which machine it is cannot be told, so nothing is done outside Kubernetes", false, null);
    }
    return id;
  }

  /** Whether the informers watch only some nodes (a node missing from the cache may exist). */
  boolean isFiltered() {
    return selector.isPresent();
  }

  /**
   * Ready once every watch is up and every node of the informers' initial lists reached the cache: an informer says
   * "synced" before its handlers have run, and a node missing from the cache would be refused as not found.
   */
  boolean isReady() {
    if (informers.isEmpty()) {
      return false;
    }
    for (SharedIndexInformer<Node> informer : informers) {
      if (!informer.hasSynced() || !informer.isWatching()) {
        return false;
      }
    }
    if (!caughtUp) {
      List<String> listed = new ArrayList<>();
      informers.forEach(i -> listed.addAll(i.getStore().listKeys()));
      caughtUp = cache.holdsAll(listed);
    }
    return caughtUp;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::stop);
    cliques.close();
  }
}
