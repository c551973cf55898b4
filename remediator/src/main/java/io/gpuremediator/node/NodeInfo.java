package io.gpuremediator.node;

import io.gpuremediator.state.NodeLedger;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of one Kubernetes node as far as remediation is concerned, with the ledger of what we
 * changed on it (decoded from its annotation by the adapter).
 *
 * @param bootId {@code status.nodeInfo.bootID}: changes whenever the machine boots (empty when not reported)
 * @param ledgerFault why the ledger annotation is not acted on (unreadable, or not ours); such a node is never acted on
 * @param gpuCapacity its {@code status.capacity} of {@code nvidia.com/gpu} (the device plugin's), else of
 *     {@code aws.amazon.com/neuron} (a Neuron node's devices); 0 when it has neither
 * @param draClique the NVLink clique NVIDIA's DRA driver published for the node ({@code cliqueID} of its
 *     ComputeDomainClique daemon), which stands for the {@value #CLIQUE_LABEL} label where GPU Feature Discovery, which
 *     sets it, does not run (the GPU Operator's DRA stack); empty when none is published
 */
public record NodeInfo(
    String name,
    Map<String, String> labels,
    Map<String, String> annotations,
    List<Taint> taints,
    boolean unschedulable,
    List<NodeCondition> conditions,
    List<String> internalIps,
    String bootId,
    String resourceVersion,
    NodeLedger ledger,
    Optional<LedgerFault> ledgerFault,
    int gpuCapacity,
    Optional<String> draClique) {
  /** GPU Feature Discovery's label of a node's NVLink clique ({@code <clusterUUID>.<cliqueId>}). */
  public static final String CLIQUE_LABEL = "nvidia.com/gpu.clique";

  /** Makes defensive copies. */
  public NodeInfo {
    Objects.requireNonNull(name, "name");
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    taints = List.copyOf(taints);
    conditions = List.copyOf(conditions);
    internalIps = List.copyOf(internalIps);
    bootId = bootId == null ? "" : bootId;
    resourceVersion = resourceVersion == null ? "" : resourceVersion;
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(ledgerFault, "ledgerFault");
    Objects.requireNonNull(draClique, "draClique");
  }

  /** A node for which no DRA driver published a clique. */
  public NodeInfo(String name, Map<String, String> labels, Map<String, String> annotations, List<Taint> taints,
      boolean unschedulable, List<NodeCondition> conditions, List<String> internalIps, String bootId, String resourceVersion,
      NodeLedger ledger, Optional<LedgerFault> ledgerFault, int gpuCapacity) {
    this(name, labels, annotations, taints, unschedulable, conditions, internalIps, bootId, resourceVersion, ledger,
        ledgerFault, gpuCapacity, Optional.empty());
  }

  /** A node without {@code nvidia.com/gpu} capacity. */
  public NodeInfo(String name, Map<String, String> labels, Map<String, String> annotations, List<Taint> taints,
      boolean unschedulable, List<NodeCondition> conditions, List<String> internalIps, String bootId, String resourceVersion,
      NodeLedger ledger, Optional<LedgerFault> ledgerFault) {
    this(name, labels, annotations, taints, unschedulable, conditions, internalIps, bootId, resourceVersion, ledger,
        ledgerFault, 0);
  }

  /** A node with only a name and labels, Ready, for offline use. */
  public static NodeInfo named(String name, Map<String, String> labels) {
    return new NodeInfo(name, labels, Map.of(), List.of(), false,
        List.of(new NodeCondition("Ready", "True", "KubeletReady", "", null, null)),
        List.of(), "", "", NodeLedger.EMPTY, Optional.empty());
  }

  /**
   * The node's value of a failure domain's label: the label itself, else, for {@value #CLIQUE_LABEL}, the clique a DRA
   * driver published; empty when neither says.
   */
  public Optional<String> domainValue(String label) {
    String value = labels.get(label);
    return value != null ? Optional.of(value) : CLIQUE_LABEL.equals(label) ? draClique : Optional.empty();
  }

  /** The same node with this published clique. */
  public NodeInfo withDraClique(Optional<String> clique) {
    return clique.equals(draClique) ? this : new NodeInfo(name, labels, annotations, taints, unschedulable, conditions,
        internalIps, bootId, resourceVersion, ledger, ledgerFault, gpuCapacity, clique);
  }

  /** The same node with this ledger and fault (the adapter's, as it hands the node out). */
  public NodeInfo withLedger(NodeLedger newLedger, Optional<LedgerFault> fault) {
    return new NodeInfo(name, labels, annotations, taints, unschedulable, conditions, internalIps, bootId,
        resourceVersion, newLedger, fault, gpuCapacity, draClique);
  }

  /** The same node with these conditions. */
  public NodeInfo withConditions(List<NodeCondition> newConditions) {
    return new NodeInfo(name, labels, annotations, taints, unschedulable, newConditions, internalIps, bootId,
        resourceVersion, ledger, ledgerFault, gpuCapacity, draClique);
  }

  /** The same node with these taints. */
  public NodeInfo withTaints(List<Taint> newTaints) {
    return new NodeInfo(name, labels, annotations, newTaints, unschedulable, conditions, internalIps, bootId,
        resourceVersion, ledger, ledgerFault, gpuCapacity, draClique);
  }

  /** The same node with these labels. */
  public NodeInfo withLabels(Map<String, String> newLabels) {
    return new NodeInfo(name, newLabels, annotations, taints, unschedulable, conditions, internalIps, bootId,
        resourceVersion, ledger, ledgerFault, gpuCapacity, draClique);
  }

  /** Whether the kubelet reports the node Ready. A node with no Ready condition is not. */
  public boolean isReady() {
    for (NodeCondition c : conditions) {
      if (c.type().equals("Ready")) {
        return c.status().equals("True");
      }
    }
    return false;
  }

  /** The condition of the given type, if present. */
  public Optional<NodeCondition> condition(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst();
  }

  /** Whether the node carries the exclusion label, so is never touched. */
  public boolean isExcluded() {
    return "true".equals(labels.get(NodeKeys.EXCLUDE_LABEL));
  }
}
