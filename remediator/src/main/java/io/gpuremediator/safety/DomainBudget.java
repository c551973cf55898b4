package io.gpuremediator.safety;

import io.gpuremediator.value.CountOrPercent;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One failure domain's budget ({@code safety.domains}): per value of the node label {@code label} (a zone, a rack, an
 * NVLink clique), at most {@code maxUnavailable} of that value's selected nodes may be unavailable, counted as
 * {@code max_unavailable} counts them (a percentage rounds down), and, with an {@code incident} threshold, a value whose
 * nodes fault together holds an incident. A node without the label is limited by the fleet budget only.
 */
public record DomainBudget(String label, CountOrPercent maxUnavailable, Optional<IncidentRule> incident) {
  /** Validates presence. */
  public DomainBudget {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(maxUnavailable, "maxUnavailable");
    Objects.requireNonNull(incident, "incident");
  }

  /** A domain without an incident threshold. */
  public DomainBudget(String label, CountOrPercent maxUnavailable) {
    this(label, maxUnavailable, Optional.empty());
  }

  /**
   * {@code incident: {nodes, window}}: more than {@code nodes} distinct nodes of one value faulting within
   * {@code window} of each other are one incident ({@link DomainIncidents}).
   */
  public record IncidentRule(int nodes, Duration window) {}

  /** One value of the domain as the gate counts it now: its selected nodes, how many are unavailable, and the budget. */
  public record Usage(String label, String value, int selected, int unavailable, int allowed) {}
}
