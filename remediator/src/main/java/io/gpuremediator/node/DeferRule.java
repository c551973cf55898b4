package io.gpuremediator.node;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code defer_to}: a sign on a Node that another system owns its repair (the EKS node monitoring agent's
 * {@code AcceleratedHardwareReady=False} before node auto repair, Karpenter's node repair, medik8s NHC's remediation
 * taint). Two repairers must never drain and reboot one node at once: a running episode whose node shows the sign is
 * deferred before its next long step, and waits for the other repairer to hand the node back (the sign gone) or for its
 * {@link Deadline}. A sign without a deadline also keeps new episodes from opening at all.
 */
public sealed interface DeferRule {
  /** Whether the node shows the sign. */
  boolean matches(NodeInfo node);

  /** The sign, as decisions name it. */
  String describe();

  /** How long the other repairer is given before {@link Deadline#then} happens; empty: as long as it takes. */
  Optional<Deadline> deadline();

  /** The first rule the node matches; empty when none does. */
  static Optional<DeferRule> firstRule(List<DeferRule> rules, NodeInfo node) {
    return rules.stream().filter(r -> r.matches(node)).findFirst();
  }

  /** What the service does once the other repairer has had {@code after} and no repair of it was seen. */
  enum Then {
    /** Our episode goes on from where it was deferred (the other repairer is no longer waited for). */
    TAKE_OVER("take_over"),
    /** People are paged, once; the episode stays deferred, for the other repairer or a human. */
    PAGE("page");

    private final String code;

    Then(String code) {
      this.code = code;
    }

    /** The config's word for it. */
    public String code() {
      return code;
    }

    /** The value of this config word. */
    public static Optional<Then> of(String code) {
      for (Then t : values()) {
        if (t.code.equals(code)) {
          return Optional.of(t);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * {@code deadline: 30m, then: take_over | page}: the other repairer's time. It counts from the deferral, and again
   * from each reboot of the node seen while the sign stays (a repair under way).
   */
  record Deadline(Duration after, Then then) {
    /** Validates presence and a positive time. */
    public Deadline {
      Objects.requireNonNull(then, "then");
      if (after.isNegative() || after.isZero()) {
        throw new IllegalArgumentException("a deadline must be positive");
      }
    }
  }

  /** {@code condition: {type, status}}: the Node's condition of this type has this status. */
  record Condition(String type, String status, Optional<Deadline> deadline) implements DeferRule {
    /** Validates presence. */
    public Condition {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(deadline, "deadline");
    }

    /** A condition without a deadline. */
    public Condition(String type, String status) {
      this(type, status, Optional.empty());
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
  record Taint(String key, Optional<Deadline> deadline) implements DeferRule {
    /** Validates presence. */
    public Taint {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(deadline, "deadline");
    }

    /** A taint without a deadline. */
    public Taint(String key) {
      this(key, Optional.empty());
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
  record Label(String key, String value, Optional<Deadline> deadline) implements DeferRule {
    /** Validates presence. */
    public Label {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(deadline, "deadline");
    }

    /** A label without a deadline. */
    public Label(String key, String value) {
      this(key, value, Optional.empty());
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
