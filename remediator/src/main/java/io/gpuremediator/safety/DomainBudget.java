package io.gpuremediator.safety;

import io.gpuremediator.value.Budget;
import java.util.Objects;

/**
 * One failure domain's budget ({@code safety.domains}): per value of the node label {@code label} (a zone, a rack, an
 * NVLink clique), at most {@code maxUnavailable} of that value's selected nodes may be unavailable, counted as
 * {@code max_unavailable} counts them (a percentage rounds down). A node without the label is limited by the fleet
 * budget only.
 */
public record DomainBudget(String label, Budget maxUnavailable) {
  /** Validates presence. */
  public DomainBudget {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(maxUnavailable, "maxUnavailable");
  }

  /** One value of the domain as the gate counts it now: its selected nodes, how many are unavailable, and the budget. */
  public record Usage(String label, String value, int selected, int unavailable, int allowed) {}
}
