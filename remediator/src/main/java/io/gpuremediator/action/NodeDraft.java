package io.gpuremediator.action;

import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.Taint;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.state.NodeLedger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A working copy of a node that actions edit, for one alert. {@link #toNode()} gives the node to
 * write; {@link #events()} the Events to record once the write succeeded. Not thread-safe.
 */
public final class NodeDraft {
  private final NodeInfo base;
  private final String holder;
  private final Phase phase;
  private final Instant now;
  private Map<String, String> labels;
  private Map<String, String> annotations;
  private boolean labelsCopied;
  private boolean annotationsCopied;
  final List<Taint> taints;
  boolean unschedulable;
  final List<NodeCondition> conditions;
  NodeLedger ledger;
  final List<NodeEvent> events;

  /**
   * Starts a draft of {@code base}.
   *
   * @param holder the fingerprint of the alert the actions run for
   */
  public NodeDraft(NodeInfo base, String holder, Phase phase, Instant now) {
    this.base = base;
    this.holder = holder;
    this.phase = phase;
    this.now = now;
    // Real GPU nodes carry dozens of labels: copied only when an action writes one.
    this.labels = base.labels();
    this.annotations = base.annotations();
    this.taints = new ArrayList<>(base.taints());
    this.unschedulable = base.unschedulable();
    this.conditions = new ArrayList<>(base.conditions());
    this.ledger = base.ledger();
    this.events = new ArrayList<>();
  }

  /** An independent copy of this draft in its current state, for evaluating dry-run actions. */
  public NodeDraft copy() {
    NodeDraft copy = new NodeDraft(toNode(), holder, phase, now);
    copy.events.addAll(events);
    return copy;
  }

  /** The node's name. */
  public String nodeName() {
    return base.name();
  }

  /** The fingerprint of the alert the actions run for. */
  public String holder() {
    return holder;
  }

  /** Whether the actions run while the alert fires or when it resolves. */
  public Phase phase() {
    return phase;
  }

  /** The time the decision is made. */
  public Instant now() {
    return now;
  }

  /** The ledger as edited so far. */
  public NodeLedger ledger() {
    return ledger;
  }

  /** Replaces the ledger. */
  public void ledger(NodeLedger next) {
    ledger = next;
  }

  /** The Events the actions asked for. */
  public List<NodeEvent> events() {
    return List.copyOf(events);
  }

  /** The labels, to read. */
  Map<String, String> labels() {
    return labels;
  }

  /** The labels, to write (copied on first write). */
  Map<String, String> labelsForWrite() {
    if (!labelsCopied) {
      labels = new LinkedHashMap<>(labels);
      labelsCopied = true;
    }
    return labels;
  }

  /** The annotations, to read. */
  Map<String, String> annotations() {
    return annotations;
  }

  /** The annotations, to write (copied on first write). */
  Map<String, String> annotationsForWrite() {
    if (!annotationsCopied) {
      annotations = new LinkedHashMap<>(annotations);
      annotationsCopied = true;
    }
    return annotations;
  }

  /** The taint with this key and effect, if present. */
  Optional<Taint> taint(String key, TaintEffect effect) {
    return taints.stream().filter(t -> t.is(key, effect)).findFirst();
  }

  /** The node as edited. */
  public NodeInfo toNode() {
    return new NodeInfo(base.name(), labels, annotations, taints, unschedulable, conditions, base.internalIps(), base.bootId(),
        base.resourceVersion(), ledger, base.ledgerFault(), base.gpuCapacity(), base.draClique());
  }
}
