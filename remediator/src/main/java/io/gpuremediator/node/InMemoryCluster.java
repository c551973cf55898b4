package io.gpuremediator.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A cluster held in memory: used by {@code explain} (offline dry-run over a nodes file) and by
 * benchmarks that measure decision cost without an API server. Writes are applied to the map.
 */
public final class InMemoryCluster implements Cluster {
  private final Map<String, NodeInfo> nodes = new ConcurrentHashMap<>();
  private final List<NodeEvent> events = new CopyOnWriteArrayList<>();
  private final ChangeLog changes = new ChangeLog(1024);

  /** Creates a cluster holding these nodes. */
  public InMemoryCluster(List<NodeInfo> initial) {
    initial.forEach(n -> nodes.put(n.name(), n));
  }

  @Override
  public Optional<NodeInfo> node(String name) {
    return Optional.ofNullable(nodes.get(name));
  }

  @Override
  public Optional<NodeInfo> nodeWithInternalIp(String ip) {
    return nodes.values().stream()
        .filter(n -> n.internalIps().stream().map(InternalIp::normalize).anyMatch(o -> o.equals(Optional.of(ip))))
        .findFirst();
  }

  @Override
  public Optional<NodeInfo> freshNode(String name) {
    return node(name);
  }

  @Override
  public List<NodeInfo> nodes() {
    return new ArrayList<>(nodes.values());
  }

  @Override
  public boolean isReady() {
    return true;
  }

  @Override
  public synchronized <T> T modifyNode(String name, Function<NodeInfo, Edited<T>> edit) throws ClusterException {
    NodeInfo current = nodes.get(name);
    if (current == null) {
      throw new ClusterException("node " + name + " not found", false, null);
    }
    Edited<T> edited = edit.apply(current);
    nodes.put(name, edited.node());
    changes.changed(name);
    return edited.result();
  }

  @Override
  public long generation() {
    return changes.generation();
  }

  @Override
  public Optional<List<String>> changedBetween(long from, long to) {
    return changes.between(from, to);
  }

  @Override
  public void recordEvent(NodeEvent event) {
    events.add(event);
  }

  /** The events recorded so far. */
  public List<NodeEvent> events() {
    return List.copyOf(events);
  }
}
