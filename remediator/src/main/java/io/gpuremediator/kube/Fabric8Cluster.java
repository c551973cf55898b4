package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.bounded.TokenBucket;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeOwner;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The {@link Cluster} port over a fabric8 client. Reads come from the node informers' cache ({@link NodeWatch},
 * {@link NodeCache}), converted once per change; writes go through {@link NodeWrites} (a PUT with the node's
 * resourceVersion, a 409 read again).
 */
public final class Fabric8Cluster implements Cluster, AutoCloseable {
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
  private final ApiThrottle throttle;
  private final NodeWrites writes;

  /** Creates the adapter over every node, every ledger signed with {@code ledgerKey}; {@link #start()} starts it. */
  public Fabric8Cluster(KubernetesClient client, String instance, byte[] ledgerKey) {
    this(client, instance, Optional.empty(), ApiThrottle.unlimited(), LedgerSigning.signedOnly(LedgerSeal.withKey(ledgerKey)));
  }

  /**
   * Creates the adapter; call {@link #start()} to begin watching nodes.
   *
   * @param selector the label selector of the nodes to watch (the API's syntax); empty watches every node
   * @param throttle what every request of this adapter takes its turn from
   * @param signing which ledgers are ours
   */
  Fabric8Cluster(KubernetesClient client, String instance, Optional<String> selector, ApiThrottle throttle,
      LedgerSigning signing) {
    this.client = client;
    this.signing = signing;
    this.cache = new NodeCache(signing);
    this.throttle = throttle;
    this.instance = instance;
    this.owners = new Fabric8NodeOwners(client, throttle);
    this.watch = new NodeWatch(client, selector, cache);
    this.writes = new NodeWrites(client, cache, watch, signing, throttle);
    this.unwatchedReads = new TokenBucket(UNWATCHED_READS_PER_SECOND, UNWATCHED_READS_PER_SECOND, System::nanoTime);
  }

  /**
   * Starts the node informers without waiting for them (ready once {@link #isReady()} says so). An API server down at
   * start or later is retried forever (fabric8's backoff): the service stays unready, answering 503, until the watch is back.
   */
  public void start() {
    watch.start();
    signing.start(client, throttle, new LedgerSigning.Nodes(watch::isReady, cache::unsigned, watch::stored, writes::ownWrite));
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

  /** {@inheritDoc} See {@link NodeWrites#modify}: cache first, status before spec, a 409 read again. */
  @Override
  public <T> T modifyNode(String name, Function<NodeInfo, Edited<T>> edit) throws ClusterException {
    return writes.modify(name, edit);
  }

  @Override
  public Optional<NodeInfo> freshNode(String name) throws ClusterException {
    try {
      Node node = throttle.read(() -> client.nodes().withName(name).get());
      return node == null ? Optional.empty() : Optional.of(signing.handOut(NodeMapper.toInfo(node, signing.seal())));
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("get node " + name, e);
    }
  }

  @Override
  public NodeIdentity identity(String name) throws ClusterException {
    return watch.unshared(name, NodeMapper.identity(writes.get(name)));
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

  @Override
  public void recordEvent(NodeEvent event) throws ClusterException {
    Event e = KubeEvents.of(EVENT_NAMESPACE, "Node", null, event.node(), event.type(), event.reason(), event.message(),
        event.time(), instance);
    try {
      throttle.write(() -> client.v1().events().inNamespace(EVENT_NAMESPACE).resource(e).create());
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
