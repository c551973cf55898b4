package io.gpuremediator.safety;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code GET /api/v1/safety} shows: every budget used and left, the breaker and the pause; {@code limits}, what
 * every limit that counts the fleet has used of what it allows, each as its own row; and the failure domains' open
 * incidents.
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
    List<FleetState.Incident> incidents) {

  /** Copies the map and the lists. */
  public SafetySnapshot {
    playbookStarts = Map.copyOf(playbookStarts);
    domains = List.copyOf(domains);
    limits = List.copyOf(limits);
    incidents = List.copyOf(incidents);
  }

  /** What the selected fleet makes of the budget: no node selected, or none of them allowed out ({@link BudgetWarnings}). */
  public List<String> warnings() {
    return BudgetWarnings.forFleet(selectedNodes, maxUnavailable);
  }
}
