package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.node.NodeOwner;
import io.gpuremediator.node.Taint;
import io.gpuremediator.state.ClaimKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Cluster} port over a fabric8 client. Reads come from a node informer's cache, converted
 * once per change; writes read the node fresh and PUT it back with its resourceVersion, retrying a
 * 409 with a fresh read.
 */
public final class Fabric8Cluster implements Cluster, AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(Fabric8Cluster.class);
  private static final int MAX_CONFLICT_RETRIES = 5;
  /** Nodes per page of the informer's list, as client-go's reflector pages its lists. */
  private static final long LIST_PAGE = 500;
  /** Events about nodes live in the default namespace, as the kubelet's do. */
  private static final String EVENT_NAMESPACE = "default";

  private final KubernetesClient client;
  private final String instance;
  private final Fabric8NodeOwners owners;
  private final Map<String, NodeInfo> byName = new ConcurrentHashMap<>();
  /**
   * Our own writes' answers the watch has not delivered yet: the next edit of the node starts from them. The
   * informer's store holds every other Node; a second full copy of each would cost ~10 KB per node.
   */
  private final Map<String, Node> ownWrites = new ConcurrentHashMap<>();
  private final Map<String, String> nameByIp = new ConcurrentHashMap<>();
  private SharedIndexInformer<Node> informer;
  private final AtomicLong generation = new AtomicLong();
  private volatile boolean caughtUp;
  private volatile Consumer<String> episodesChanged = name -> { };

  /** Creates the adapter; call {@link #start()} to begin watching nodes. */
  public Fabric8Cluster(KubernetesClient client, String instance) {
    this.client = client;
    this.instance = instance;
    this.owners = new Fabric8NodeOwners(client);
  }

  /**
   * Starts the node informer without waiting for it: the cache is ready once {@link #isReady()} says so.
   * An API server that is down at start or later is retried forever (with fabric8's backoff), never a
   * dead cache: the service stays unready and answers 503 until the watch is back.
   */
  public void start() {
    // Listed 500 at a time, and each node's repeated strings shared as it is stored: 10,000 nodes listed whole
    // took more heap than the Deployment's limit gives (all of them parsed at once, before any was stored).
    informer = client.nodes().withLimit(LIST_PAGE).runnableInformer(0);
    informer.itemStore(new CanonicalNodeStore());
    informer.exceptionHandler((started, t) -> {
      LOGGER.warn("node watch failed ({}); retrying", t.toString());
      return true;
    });
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Node node) {
        cache(node);
      }

      @Override
      public void onUpdate(Node old, Node node) {
        cache(node);
      }

      @Override
      public void onDelete(Node node, boolean finalStateUnknown) {
        ownWrites.remove(node.getMetadata().getName());
        generation.incrementAndGet();
        NodeInfo gone = byName.remove(node.getMetadata().getName());
        if (gone != null) {
          gone.internalIps().forEach(ip -> nameByIp.remove(ip, gone.name()));
        }
      }
    });
    informer.start();
  }

  private void cache(Node node) {
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
    NodeInfo info = NodeMapper.toInfo(node);
    generation.incrementAndGet();
    NodeInfo previous = byName.put(info.name(), info);
    if (previous != null) {
      previous.internalIps().stream().filter(ip -> !info.internalIps().contains(ip))
          .forEach(ip -> nameByIp.remove(ip, info.name()));
    }
    info.internalIps().forEach(ip -> nameByIp.put(ip, info.name()));
    boolean owes = !info.ledger().episodes().isEmpty() || !info.ledger().expiring().isEmpty(); // silences to expire
    if (owes && (previous == null || !previous.ledger().equals(info.ledger()) || rebootMoved(previous, info)
        || takenBack(previous, info)) || arrivedWithOwnTaint(previous, info)) {
      episodesChanged.accept(info.name());
    }
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

  /**
   * Tells {@code listener} the name of each node with episodes whose ledger, bootID or readiness changed (what a step
   * under way waits for), and of each node that arrived with a taint of ours no episode holds (the pre-flight gate's),
   * on the watch's thread: keep it quick.
   */
  public void onEpisodesChanged(Consumer<String> listener) {
    this.episodesChanged = listener;
  }

  /** Whether version {@code a} is later than {@code b} (our own write's answer can beat the watch event it causes). */
  private static boolean isNewer(String a, String b) {
    try {
      return Long.parseLong(a) > Long.parseLong(b);
    } catch (NumberFormatException e) {
      return false; // resourceVersions are opaque in general; then the latest delivered wins
    }
  }

  /** Caches the answer of one of our writes, and starts the node's next edit from it until the watch catches up. */
  private Node cacheOwn(Node written) {
    ownWrites.put(written.getMetadata().getName(), written);
    cache(written);
    return written;
  }

  @Override
  public Optional<NodeInfo> node(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  @Override
  public Optional<NodeInfo> nodeWithInternalIp(String ip) {
    return Optional.ofNullable(nameByIp.get(ip)).map(byName::get);
  }

  @Override
  public List<NodeInfo> nodes() {
    return new ArrayList<>(byName.values());
  }

  /**
   * Ready once the watch is up and every node of the informer's initial list reached our cache: the
   * informer says "synced" before its handlers have run, and a node missing from the cache would be
   * refused as not found.
   */
  @Override
  public boolean isReady() {
    if (informer == null || !informer.hasSynced() || !informer.isWatching()) {
      return false;
    }
    if (!caughtUp) {
      caughtUp = byName.keySet().containsAll(informer.getStore().listKeys());
    }
    return caughtUp;
  }

  @Override
  public long generation() {
    return generation.get();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The first attempt starts from the watch cache, as controllers do: if the cache is stale a write
   * fails with 409 and the next attempt reads the node fresh and edits it again. The conditions the edit
   * sets are written first (the status subresource), then the metadata and spec with the ledger: the ledger
   * is the record that the episode's node actions were done, so everything it vouches for is stored before
   * it. A write whose answer was lost (a timeout after the server applied it, a reset connection) is then
   * harmless: if it was the status write, the retry finds the conditions set and writes the rest; if it was
   * the ledger write, the retry finds the episode and does nothing. So a quarantine costs three calls:
   * status update, update, event.
   */
  @Override
  public <T> T modifyNode(String name, Function<NodeInfo, Edited<T>> edit) throws ClusterException {
    Node next = ownWrites.get(name); // the first attempt starts from our last write, or the watch's cache
    if (next == null && informer != null) {
      next = informer.getStore().getByKey(name);
    }
    for (int attempt = 1; ; attempt++) {
      boolean fromCache = attempt == 1 && next != null;
      Node fresh = next != null ? next : get(name);
      next = null;
      NodeInfo current = NodeMapper.toInfo(fresh);
      Edited<T> edited = edit.apply(current);
      Map<String, NodeCondition> conditions = changedConditions(current, edited.node());
      boolean specChanges = NodeMapper.specDiffers(current, edited.node());
      if (fromCache && conditions.isEmpty() && !specChanges) {
        // Nothing to write, as the cache sees it. The cache can be behind our own last write (its answer lost
        // to a timeout or a reset, its watch event not yet here): confirm on the server before saying so.
        Node server = get(name);
        if (!Objects.equals(server.getMetadata().getResourceVersion(), fresh.getMetadata().getResourceVersion())) {
          cacheOwn(server);
          next = server;
          continue;
        }
      }
      String what = "update status of node " + name;
      try {
        Node written = writeConditions(fresh, current, conditions);
        if (written != fresh && NodeMapper.specDiffers(current, NodeMapper.toInfo(written))) {
          // The node changed since the edit read it (a server that does not fence status writes by
          // resourceVersion lets this through): edit again on what is stored, never write a stale spec.
          next = written;
          continue;
        }
        what = "update node " + name;
        if (specChanges) {
          cacheOwn(client.nodes().resource(NodeMapper.withSpec(written, edited.node())).update());
        }
      } catch (KubernetesClientException e) {
        retryOnConflict(e, attempt, what);
        continue;
      }
      return edited.result();
    }
  }

  /** The conditions the edit set or changed, by type. */
  private static Map<String, NodeCondition> changedConditions(NodeInfo before, NodeInfo after) {
    Map<String, NodeCondition> changed = new LinkedHashMap<>();
    for (NodeCondition c : after.conditions()) {
      if (!before.conditions().contains(c)) {
        changed.put(c.type(), c);
      }
    }
    return changed;
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
    NodeInfo wanted = new NodeInfo(current.name(), current.labels(), current.annotations(), current.taints(),
        current.unschedulable(), merged, current.internalIps(), current.bootId(), current.resourceVersion(), current.ledger(),
        current.ledgerError());
    return cacheOwn(client.nodes().resource(NodeMapper.withConditions(fresh, wanted)).updateStatus());
  }

  private void retryOnConflict(KubernetesClientException e, int attempt, String what) throws ClusterException {
    if (e.getCode() == 409 && attempt < MAX_CONFLICT_RETRIES) {
      LOGGER.debug("{}: conflict on attempt {}, re-reading", what, attempt);
      return;
    }
    throw failure(what, e);
  }

  @Override
  public Optional<NodeInfo> freshNode(String name) throws ClusterException {
    try {
      Node node = client.nodes().withName(name).get();
      return node == null ? Optional.empty() : Optional.of(NodeMapper.toInfo(node));
    } catch (KubernetesClientException e) {
      throw failure("get node " + name, e);
    }
  }

  @Override
  public Optional<String> providerId(String name) throws ClusterException {
    Node node = get(name);
    return Optional.ofNullable(node.getSpec() == null ? null : node.getSpec().getProviderID()).filter(p -> !p.isEmpty());
  }

  @Override
  public Optional<NodeOwner> nodeClaimOf(String node) throws ClusterException {
    return owners.nodeClaimOf(node);
  }

  @Override
  public Optional<NodeOwner> machineOf(String node) throws ClusterException {
    return owners.machineOf(node);
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
      Node node = client.nodes().withName(name).get();
      if (node == null) {
        throw new ClusterException("node " + name + " no longer exists", false, null);
      }
      return node;
    } catch (KubernetesClientException e) {
      throw failure("get node " + name, e);
    }
  }

  @Override
  public void recordEvent(NodeEvent event) throws ClusterException {
    Event e = KubeEvents.of(EVENT_NAMESPACE, "Node", null, event.node(), event.type(), event.reason(), event.message(),
        event.time(), instance);
    try {
      client.v1().events().inNamespace(EVENT_NAMESPACE).resource(e).create();
    } catch (KubernetesClientException ex) {
      throw failure("record event " + event.reason() + " on node " + event.node(), ex);
    }
  }

  /** Transient: no HTTP answer (fabric8 reports code 0 or -1), 429, 5xx, or a conflict we gave up retrying. */
  static ClusterException failure(String what, KubernetesClientException e) {
    int code = e.getCode();
    boolean transientFailure = code <= 0 || code == 409 || code == 429 || code >= 500;
    String status = code <= 0 ? "no answer" : "HTTP " + code;
    return new ClusterException(what + " failed (" + status + "): " + e.getMessage(), transientFailure, e);
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.stop();
    }
  }
}
