package io.gpuremediator.testing;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeOwner;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** A cluster that hands every call to another: a test overrides only the calls it wants to see or bend. */
public class ForwardingCluster implements Cluster {
  private final Cluster to;

  /** Forwards to {@code to}. */
  public ForwardingCluster(Cluster to) {
    this.to = to;
  }

  @Override
  public Optional<NodeInfo> node(String name) {
    return to.node(name);
  }

  @Override
  public Optional<NodeInfo> nodeWithInternalIp(String ip) {
    return to.nodeWithInternalIp(ip);
  }

  @Override
  public Optional<NodeInfo> freshNode(String name) throws ClusterException {
    return to.freshNode(name);
  }

  @Override
  public Optional<NodeInfo> unwatchedNode(String name) throws ClusterException {
    return to.unwatchedNode(name);
  }

  @Override
  public boolean holdsEveryNode() {
    return to.holdsEveryNode();
  }

  @Override
  public NodeIdentity identity(String name) throws ClusterException {
    return to.identity(name);
  }

  @Override
  public Optional<NodeOwner> ownerOf(NodeOwner.Kind kind, String node) throws ClusterException {
    return to.ownerOf(kind, node);
  }

  @Override
  public Optional<NodeOwner> owner(NodeOwner.Kind kind, String namespace, String name) throws ClusterException {
    return to.owner(kind, namespace, name);
  }

  @Override
  public void deleteOwner(NodeOwner owner) throws ClusterException {
    to.deleteOwner(owner);
  }

  @Override
  public void annotateOwner(NodeOwner owner, String key, String value) throws ClusterException {
    to.annotateOwner(owner, key, value);
  }

  @Override
  public List<NodeInfo> nodes() {
    return to.nodes();
  }

  @Override
  public boolean isReady() {
    return to.isReady();
  }

  @Override
  public long generation() {
    return to.generation();
  }

  @Override
  public <T> T modifyNode(String name, Function<NodeInfo, Edited<T>> edit) throws ClusterException {
    return to.modifyNode(name, edit);
  }

  @Override
  public void recordEvent(NodeEvent event) throws ClusterException {
    to.recordEvent(event);
  }
}
