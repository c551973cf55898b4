package io.gpuremediator.node;

import io.gpuremediator.decision.Reason;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the node an alert is about through the {@code node_from} label chain. The first label of the
 * chain that is set decides; a later label is never used to second-guess an invalid earlier one.
 * {@code instance} is read as IP[:port] and looked up against node InternalIPs; every other label
 * must hold an RFC 1123 node name.
 */
public final class NodeResolver {
  private static final String INSTANCE = "instance";

  private final List<String> chain;
  private final LabelSelector selector;
  private final Cluster cluster;
  private final UnwatchedNodes unwatched;

  /** A resolver that reads a node the cache misses where it is asked (a command: explain, backtest). */
  public NodeResolver(List<String> chain, LabelSelector selector, Cluster cluster) {
    this(chain, selector, cluster, UnwatchedNodes.inline(cluster, selector, Clock.systemUTC()));
  }

  /** A resolver that names the refusal of a node the cache misses by what {@code unwatched} found. */
  public NodeResolver(List<String> chain, LabelSelector selector, Cluster cluster, UnwatchedNodes unwatched) {
    this.chain = List.copyOf(chain);
    this.selector = selector;
    this.cluster = cluster;
    this.unwatched = unwatched;
  }

  /** Resolves the alert with these labels. */
  public Resolution resolve(Map<String, String> labels) {
    for (String label : chain) {
      String value = labels.get(label);
      if (value != null && !value.isEmpty()) {
        return label.equals(INSTANCE) ? byInstance(value) : byName(label, value);
      }
    }
    return new Resolution.Ineligible(Reason.NODE_UNRESOLVED, "", "none of the labels " + chain + " is set");
  }

  private Resolution byName(String label, String value) {
    Optional<String> invalid = FieldRule.DNS_SUBDOMAIN.check(value);
    if (invalid.isPresent()) {
      return new Resolution.Ineligible(Reason.NODE_UNRESOLVED, "",
          "label " + label + ": " + invalid.get() + ", so it names no node");
    }
    Optional<NodeInfo> cached = cluster.node(value);
    return cached.isPresent() ? eligibility(cached.get()) : unwatched.refusal(value);
  }

  private Resolution byInstance(String value) {
    Optional<String> ip = InternalIp.fromInstance(value);
    if (ip.isEmpty()) {
      return new Resolution.Ineligible(Reason.NODE_UNRESOLVED, "",
          "label instance is not IP[:port], so it names no node");
    }
    return cluster.nodeWithInternalIp(ip.get())
        .map(this::eligibility)
        .orElseGet(() -> new Resolution.Ineligible(Reason.NODE_NOT_FOUND, "", "no node has InternalIP " + ip.get()));
  }

  private Resolution eligibility(NodeInfo node) {
    if (!selector.matches(node.labels())) {
      return new Resolution.Ineligible(Reason.NODE_NOT_SELECTED, node.name(),
          "node " + node.name() + " does not match node_selector " + selector);
    }
    if (node.isExcluded()) {
      return new Resolution.Ineligible(Reason.NODE_EXCLUDED, node.name(),
          "node " + node.name() + " is labelled " + NodeKeys.EXCLUDE_LABEL + "=true");
    }
    return new Resolution.Eligible(node);
  }
}
