package io.gpuremediator.node;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code defer_to}: a sign on a Node that another system owns its repair (the EKS node monitoring agent's
 * {@code AcceleratedHardwareReady=False} before node auto repair, Karpenter's node repair, medik8s NHC's remediation
 * taint). A node that shows one gets no new episode of ours, and an episode already running stops before its next
 * step: two repairers must never drain and reboot one node at once.
 */
public sealed interface DeferRule {
  /** Whether the node shows the sign. */
  boolean matches(NodeInfo node);

  /** The sign, as decisions name it. */
  String describe();

  /** The first rule the node matches, described; empty when none does. */
  static Optional<String> firstMatch(List<DeferRule> rules, NodeInfo node) {
    return rules.stream().filter(r -> r.matches(node)).findFirst().map(DeferRule::describe);
  }

  /** {@code condition: {type, status}}: the Node's condition of this type has this status. */
  record Condition(String type, String status) implements DeferRule {
    /** Validates presence. */
    public Condition {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(status, "status");
    }

    @Override
    public boolean matches(NodeInfo node) {
      return node.conditions().stream().anyMatch(c -> c.type().equals(type) && c.status().equals(status));
    }

    @Override
    public String describe() {
      return "condition " + type + "=" + status;
    }
  }

  /** {@code taint: {key}}: the Node carries a taint with this key, whatever its value and effect. */
  record Taint(String key) implements DeferRule {
    /** Validates presence. */
    public Taint {
      Objects.requireNonNull(key, "key");
    }

    @Override
    public boolean matches(NodeInfo node) {
      return node.taints().stream().anyMatch(t -> t.key().equals(key));
    }

    @Override
    public String describe() {
      return "taint " + key;
    }
  }

  /** {@code label: {key, value}}: the Node has this label with this value. */
  record Label(String key, String value) implements DeferRule {
    /** Validates presence. */
    public Label {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }

    @Override
    public boolean matches(NodeInfo node) {
      return value.equals(node.labels().get(key));
    }

    @Override
    public String describe() {
      return "label " + key + "=" + value;
    }
  }
}
