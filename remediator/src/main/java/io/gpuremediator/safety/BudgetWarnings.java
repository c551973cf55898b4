package io.gpuremediator.safety;

import io.gpuremediator.value.CountOrPercent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Limits that silently do nothing: a percentage budget rounds down, so {@code max_unavailable: 10%} allows no node
 * at all in a pool of fewer than 10, and a {@code node_selector} that matches no node selects nothing to remediate.
 * Neither is an error (a pool grows, nodes join), but each must be said: {@code validate} says what it can without a
 * cluster, {@code serve} logs it once its node watch has synced and whenever it changes, and {@code GET /api/v1/safety}
 * and the status page show it for the fleet.
 */
public final class BudgetWarnings {
  private BudgetWarnings() {}

  /** What the config alone tells: from which fleet size on a percentage budget allows a node. */
  public static List<String> offline(CountOrPercent maxUnavailable, CountOrPercent maxDraining) {
    List<String> out = new ArrayList<>();
    roundsToZero("max_unavailable", maxUnavailable, "nothing is ever quarantined").ifPresent(out::add);
    roundsToZero("max_draining", maxDraining, "no node is ever drained").ifPresent(out::add);
    return out;
  }

  private static Optional<String> roundsToZero(String key, CountOrPercent budget, String consequence) {
    if (!budget.percent() || budget.value() == 0 || budget.value() >= 100) {
      return Optional.empty();
    }
    int smallest = (100 + budget.value() - 1) / budget.value();
    return Optional.of("safety." + key + " " + budget + " rounds down to 0 for fewer than " + smallest
        + " selected nodes: on such a fleet " + consequence + " (an integer, such as 1, allows a node in a small pool)");
  }

  /** What the selected fleet now tells: no node selected, or a budget that allows none of them. */
  public static List<String> forFleet(int selectedNodes, int allowed) {
    if (selectedNodes == 0) {
      return List.of("node_selector matches no node: nothing will be remediated (check the selector against your nodes'"
          + " labels: GPU Feature Discovery, GKE, AKS and Karpenter label GPU nodes differently)");
    }
    if (allowed == 0) {
      return List.of("safety.max_unavailable allows 0 of the " + selectedNodes
          + " selected nodes: nothing will be quarantined (a percentage rounds down; an integer, such as 1, allows a node)");
    }
    return List.of();
  }
}
