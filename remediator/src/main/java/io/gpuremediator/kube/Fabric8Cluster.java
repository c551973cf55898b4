package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.bounded.TokenBucket;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeOwner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Cluster} port over a fabric8 client. Reads come from the node informers' cache ({@link NodeWatch},
 * {@link NodeCache}), converted once per change; writes read the node fresh and PUT it back with its resourceVersion, retrying a
 * 409 with a fresh read.
 */
public final class Fabric8Cluster implements Cluster, AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(Fabric8Cluster.class);
  private static final int MAX_CONFLICT_RETRIES = 5;
  /** Events about nodes live in the default namespace, as the kubelet's do. */
  private static final String EVENT_NAMESPACE = "default";
  /** Reads of nodes outside the watch (an alert naming an unselected node): at most this many a second. */
  private static final int UNWATCHED_READS_PER_SECOND = 5;

  private final KubernetesClient client;
  private final String instance;
  private final Fabric8NodeOwners owners;
  private final LedgerSigning signing;
  private final NodeCache cache;
  private final NodeWatch watch;
  private final TokenBucket unwatchedReads;
  private final ApiBudget budget;

  /** Creates the adapter over every node, every ledger signed with {@code ledgerKey}; {@link #start()} starts it. */
  public Fabric8Cluster(KubernetesClient client, String instance, byte[] ledgerKey) {
    this(client, instance, Optional.empty(), ApiBudget.unlimited(), LedgerSigning.signedOnly(LedgerSeal.withKey(ledgerKey)));
  }

  /**
   * Creates the adapter; call {@link #start()} to begin watching nodes.
   *
   * @param selector the label selector of the nodes to watch (the API's syntax); empty watches every node
   * @param budget what every request of this adapter takes its turn from
   * @param signing which ledgers are ours
   */
  Fabric8Cluster(KubernetesClient client, String instance, Optional<String> selector, ApiBudget budget,
      LedgerSigning signing) {
    this.client = client;
    this.signing = signing;
    this.cache = new NodeCache(signing);
    this.budget = budget;
    this.instance = instance;
    this.owners = new Fabric8NodeOwners(client, budget);
    this.watch = new NodeWatch(client, selector, cache);
    this.unwatchedReads = new TokenBucket(UNWATCHED_READS_PER_SECOND, UNWATCHED_READS_PER_SECOND, System::nanoTime);
  }

  /**
   * Starts the node informers without waiting for them (ready once {@link #isReady()} says so). An API server down at
   * start or later is retried forever (fabric8's backoff): the service stays unready, answering 503, until the watch is back.
   */
  public void start() {
    watch.start();
    signing.start(client, budget, new LedgerSigning.Nodes(watch::isReady, cache::unsigned, watch::stored, this::ownWrite));
  }

  /** Whether this instance may re-sign the ledgers an earlier release wrote unsigned (it leads; not a dry-run). */
  public void reSignsLedgersWhen(BooleanSupplier mayWrite) {
    signing.mayWrite(mayWrite);
  }

  /**
   * Tells {@code listener} each node with episodes whose ledger, bootID or readiness changed (what a step waits for), and
   * each that arrived with a taint of ours no episode holds (the pre-flight gate's), on the watch's thread: keep it quick.
   */
  public void onEpisodesChanged(Consumer<String> listener) {
    cache.onEpisodesChanged(listener);
  }

  @Override
  public Optional<NodeInfo> node(String name) {
    return cache.node(name);
  }

  @Override
  public Optional<NodeInfo> nodeWithInternalIp(String ip) {
    return cache.nodeWithInternalIp(ip);
  }

  @Override
  public List<NodeInfo> nodes() {
    return cache.nodes();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Only when the watch is filtered by a label selector, and at most {@value #UNWATCHED_READS_PER_SECOND} a second:
   * alerts about nodes outside the selector cannot make the service read the whole cluster one node at a time.
   */
  @Override
  public Optional<NodeInfo> unwatchedNode(String name) throws ClusterException {
    if (!watch.isFiltered()) {
      return Optional.empty();
    }
    if (!unwatchedReads.tryTake()) {
      throw new ClusterException("reads of nodes outside the watch are over their rate (" + UNWATCHED_READS_PER_SECOND
          + " a second)", true, null);
    }
    return freshNode(name);
  }

  @Override
  public boolean holdsEveryNode() {
    return !watch.isFiltered();
  }

  /** Ready once every node watch is up, every node they listed is cached, and it is known which ledgers are ours. */
  @Override
  public boolean isReady() {
    return watch.isReady() && signing.isSettled();
  }

  @Override
  public long generation() {
    return cache.generation();
  }

  @Override
  public Optional<List<String>> changedBetween(long from, long to) {
    return cache.changedBetween(from, to);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The first attempt starts from the watch cache, as controllers do: a stale cache fails with 409 and the next attempt
   * reads the node fresh and edits it again. The conditions the edit sets are written first (the status subresource), then
   * the metadata and spec with the ledger: the ledger records that the episode's node actions were done, so everything it
   * vouches for is stored before it. A write whose answer was lost (a timeout after the server applied it, a reset
   * connection) is then harmless: the retry finds the conditions set and writes the rest, or finds the episode and does
   * nothing.
   */
  @Override
  public <T> T modifyNode(String name, Function<NodeInfo, Edited<T>> edit) throws ClusterException {
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
          // The node changed since the edit read it (a server that does not fence status writes by
          // resourceVersion lets this through): edit again on what is stored, never write a stale spec.
          next = written;
          continue;
        }
        what = "update node " + name;
        if (specChanges) {
          Node spec = NodeMapper.withSpec(written, edited.node(), signing.seal());
          ownWrite(budget.write(() -> client.nodes().resource(spec).update()));
        }
      } catch (KubernetesClientException e) {
        retryOnConflict(e, attempt, what);
        continue;
      }
      return edited.result();
    }
  }

  /** Caches our write's answer, unless it took the node out of every watch: the watch's DELETED is not undone. */
  private Node ownWrite(Node written) {
    if (watch.inView(written)) {
      return cache.putOwn(written);
    }
    cache.remove(written.getMetadata().getName());
    return written;
  }

  /**
   * Writes the status part: the conditions the edit decided, merged onto the node as read (the kubelet's
   * conditions kept), fenced by its resourceVersion; returns the node as stored after it (or as read when
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
    return ownWrite(budget.write(() -> client.nodes().resource(status).updateStatus()));
  }

  private void retryOnConflict(KubernetesClientException e, int attempt, String what) throws ClusterException {
    if (e.getCode() == 409 && attempt < MAX_CONFLICT_RETRIES) {
      LOGGER.debug("{}: conflict on attempt {}, re-reading", what, attempt);
      return;
    }
    throw ApiFailures.of(what, e);
  }

  @Override
  public Optional<NodeInfo> freshNode(String name) throws ClusterException {
    try {
      Node node = budget.read(() -> client.nodes().withName(name).get());
      return node == null ? Optional.empty() : Optional.of(signing.handOut(NodeMapper.toInfo(node, signing.seal())));
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("get node " + name, e);
    }
  }

  @Override
  public NodeIdentity identity(String name) throws ClusterException {
    return watch.unshared(name, NodeMapper.identity(get(name)));
  }

  @Override
  public Optional<NodeOwner> ownerOf(NodeOwner.Kind kind, String node) throws ClusterException {
    return owners.ownerOf(kind, node);
  }

  @Override
  public Optional<NodeOwner> owner(NodeOwner.Kind kind, String namespace, String name) throws ClusterException {
    return owners.owner(kind, namespace, name);
  }

  @Override
  public void deleteOwner(NodeOwner owner) throws ClusterException {
    owners.delete(owner);
  }

  @Override
  public void annotateOwner(NodeOwner owner, String key, String value) throws ClusterException {
    owners.annotate(owner, key, value);
  }

  private Node get(String name) throws ClusterException {
    try {
      Node node = budget.read(() -> client.nodes().withName(name).get());
      if (node == null) {
        throw new ClusterException("node " + name + " no longer exists", false, null);
      }
      return node;
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("get node " + name, e);
    }
  }

  @Override
  public void recordEvent(NodeEvent event) throws ClusterException {
    Event e = KubeEvents.of(EVENT_NAMESPACE, "Node", null, event.node(), event.type(), event.reason(), event.message(),
        event.time(), instance);
    try {
      budget.write(() -> client.v1().events().inNamespace(EVENT_NAMESPACE).resource(e).create());
    } catch (KubernetesClientException ex) {
      throw ApiFailures.of("record event " + event.reason() + " on node " + event.node(), ex);
    }
  }

  /** Stops the node watches. */
  @Override
  public void close() {
    signing.close();
    watch.close();
  }
}
