package io.gpuremediator.node;

import io.gpuremediator.bounded.BoundedMap;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the API says of the nodes an alert names and the watch cache does not hold, when the watch covers only the
 * selected nodes. Whatever a read finds, the alert is refused (the node is outside {@code node_selector}, or does not
 * exist, or registered a moment ago): the read only names the refusal. So the service never waits on it: a name
 * without a finding is {@code node_not_found} "being read" at once and queued, the reads run on one background thread
 * at the cluster port's pace, and what they find names the refusals of the next sends (Alertmanager sends a firing
 * alert again every group interval), {@code node_not_selected} or {@code node_not_found}.
 *
 * <p>Bounded whatever the alerts name: at most {@value #MAX_QUEUED} names wait, the most recently asked read first and
 * the least recently asked dropped first (a name Alertmanager still sends is asked again),
 * {@value #MAX_KNOWN} findings are kept, the least recently used dropped first, each for {@link #KEPT}. Offline
 * ({@link #inline}) a read is made where it is asked, as a command has no next send.
 */
public final class UnwatchedNodes implements AutoCloseable {
  static final int MAX_QUEUED = 1_000;
  static final int MAX_KNOWN = 10_000;
  /** How long a finding names refusals: a node outside the selector may be relabelled, one missing may register. */
  static final Duration KEPT = Duration.ofMinutes(10);
  private static final long PAUSE_MILLIS = 200;

  private record Finding(Resolution.Ineligible refusal, Instant at) {}

  private final Cluster cluster;
  private final LabelSelector selector;
  private final Clock clock;
  private final Optional<ScheduledExecutorService> reader;
  private final Map<String, Finding> known = BoundedMap.leastRecentlyUsed(MAX_KNOWN);
  /** The names to read, the most recently asked first: those Alertmanager still sends are read before a flood's. */
  private final Deque<String> queue = new ArrayDeque<>();
  private final Set<String> queued = new HashSet<>();
  private boolean draining;

  private UnwatchedNodes(Cluster cluster, LabelSelector selector, Clock clock, Optional<ScheduledExecutorService> reader) {
    this.cluster = cluster;
    this.selector = selector;
    this.clock = clock;
    this.reader = reader;
  }

  /** For the service: reads on a background thread, never where a refusal is decided. */
  public static UnwatchedNodes background(Cluster cluster, LabelSelector selector, Clock clock) {
    return new UnwatchedNodes(cluster, selector, clock, Optional.of(Executors.newSingleThreadScheduledExecutor(
        DaemonThreads.named("remediator-unwatched-nodes"))));
  }

  /** For a command (explain, backtest): reads where it is asked. */
  public static UnwatchedNodes inline(Cluster cluster, LabelSelector selector, Clock clock) {
    return new UnwatchedNodes(cluster, selector, clock, Optional.empty());
  }

  /** The refusal of an alert about {@code name}, a valid node name the cache does not hold. */
  Resolution.Ineligible refusal(String name) {
    if (cluster.holdsEveryNode()) {
      return new Resolution.Ineligible(Reason.NODE_NOT_FOUND, name, "no node named " + name);
    }
    if (reader.isEmpty()) {
      return read(name).orElseGet(() -> new Resolution.Ineligible(Reason.NODE_NOT_FOUND, name, "no node named " + name
          + " in the watch cache, and it could not be read"));
    }
    synchronized (this) {
      Finding f = known.get(name);
      if (f != null && f.at().plus(KEPT).isAfter(clock.instant())) {
        return f.refusal();
      }
      if (!queued.add(name)) {
        queue.remove(name); // asked again: Alertmanager still sends it, so it is read before a flood's names
      }
      queue.addFirst(name);
      if (queue.size() > MAX_QUEUED) {
        queued.remove(queue.removeLast());
      }
      if (!draining) {
        draining = true;
        reader.get().execute(this::drain);
      }
    }
    return new Resolution.Ineligible(Reason.NODE_NOT_FOUND, name, "no node named " + name + " among the selected nodes"
        + " the watch holds; whether it exists outside node_selector is being read, and Alertmanager's next send will say");
  }

  /** Reads the queued names one by one; over the port's rate, pauses and goes on. */
  private void drain() {
    while (true) {
      String name;
      synchronized (this) {
        if (queue.isEmpty()) {
          draining = false;
          return;
        }
        name = queue.peekFirst();
      }
      Optional<Resolution.Ineligible> found;
      try {
        found = Optional.of(find(name));
      } catch (ClusterException e) {
        if (e.isTransient()) {
          reader.get().schedule(this::drain, PAUSE_MILLIS, TimeUnit.MILLISECONDS);
          return;
        }
        found = Optional.empty();
      }
      synchronized (this) {
        queue.remove(name);
        queued.remove(name);
        found.ifPresent(r -> known.put(name, new Finding(r, clock.instant())));
      }
    }
  }

  private Optional<Resolution.Ineligible> read(String name) {
    try {
      return Optional.of(find(name));
    } catch (ClusterException e) {
      return Optional.of(new Resolution.Ineligible(Reason.NODE_NOT_FOUND, name, "no node named " + name + " in the watch"
          + " cache, and it could not be read: " + e.getMessage()));
    }
  }

  private Resolution.Ineligible find(String name) throws ClusterException {
    Optional<NodeInfo> node = cluster.unwatchedNode(name);
    if (node.isEmpty()) {
      return new Resolution.Ineligible(Reason.NODE_NOT_FOUND, name, "no node named " + name);
    }
    if (!selector.matches(node.get().labels())) {
      return new Resolution.Ineligible(Reason.NODE_NOT_SELECTED, name, "node " + name + " does not match node_selector "
          + selector);
    }
    return new Resolution.Ineligible(Reason.NODE_NOT_FOUND, name, "node " + name + " exists but is not in the watch"
        + " cache yet (a node that just registered); Alertmanager's next send will find it");
  }

  @Override
  public void close() {
    reader.ifPresent(ScheduledExecutorService::shutdownNow);
  }
}
