package io.gpuremediator.safety;

import io.gpuremediator.node.NodeInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What {@code GET /api/v1/safety} shows: every budget used and left, the breaker and the pause; {@code limits}, what
 * every limit that counts the fleet has used of what it allows, each as its own row; and the failure domains' open
 * incidents.
 *
 * @param domainLabelMissing per domain label ({@code safety.domains}), how many selected nodes show no value for it: no
 *     label, and (for {@code nvidia.com/gpu.clique}) no clique a DRA driver published; its budget and incidents do not
 *     count them
 */
public record SafetySnapshot(
    boolean loaded,
    int selectedNodes,
    int unavailableNodes,
    int maxUnavailable,
    String rateLimit,
    int rateUsed,
    Map<String, Integer> playbookStarts,
    FleetState.Breaker breaker,
    int breakerNodesInWindow,
    int breakerThreshold,
    Duration breakerWindow,
    Optional<Duration> breakerAutoResetAfter,
    Optional<FleetState.Pause> pause,
    List<DomainBudget.Usage> domains,
    List<LimitUsage> limits,
    List<FleetState.Incident> incidents,
    Map<String, Integer> domainLabelMissing) {

  /** Copies the map and the lists. */
  public SafetySnapshot {
    playbookStarts = Map.copyOf(playbookStarts);
    domains = List.copyOf(domains);
    limits = List.copyOf(limits);
    incidents = List.copyOf(incidents);
    domainLabelMissing = Map.copyOf(domainLabelMissing);
  }

  /**
   * What the selected fleet makes of the budgets: no node selected, or none of them allowed out
   * ({@link BudgetWarnings}); a failure domain whose label some selected nodes do not show.
   */
  public List<String> warnings() {
    List<String> out = new ArrayList<>(BudgetWarnings.forFleet(selectedNodes, maxUnavailable));
    new TreeMap<>(domainLabelMissing).forEach((label, missing) -> {
      if (missing > 0) {
        out.add("safety.domains label " + label + ": " + missing + " of the " + selectedNodes + " selected nodes show no"
            + " value for it (no label" + (label.equals(NodeInfo.CLIQUE_LABEL) ? ", and no NVLink clique published by"
            + " NVIDIA's DRA driver: GPU Feature Discovery sets the label, and the GPU Operator's DRA stack runs none" : "")
            + "): that domain's budget and incidents do not count them");
      }
    });
    return out;
  }
}
