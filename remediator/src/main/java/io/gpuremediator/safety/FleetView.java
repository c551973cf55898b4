package io.gpuremediator.safety;

import io.gpuremediator.safety.SafetyGate.Candidate;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The fleet as every limit counts it at one instant: the state, the limits, the selected nodes (how many; per failure
 * domain's value, which), those unavailable, and the admissions not yet settled (none when the API asks for usage).
 * The collections are the gate's own, not copies (an admission checks every candidate of a storm): a view is read under
 * the gate's lock, or over collections nobody changes, and never kept.
 *
 * @param domains per domain label, per value, the selected nodes of that value
 */
record FleetView(Instant now, FleetState state, SafetyLimits limits, int selected, Set<String> unavailable,
    Map<String, Map<String, List<String>>> domains, List<Candidate> reservations) {
  /** The nodes of the reservations: each counts until the cache shows it out of service. */
  Set<String> reservedNodes() {
    return reservations.stream().map(r -> r.node().name()).collect(Collectors.toSet());
  }

  /** Whether the node already counts as out (unavailable, or reserved): a second episode on it takes no second unit. */
  boolean counts(String node) {
    return unavailable.contains(node) || reservations.stream().anyMatch(r -> r.node().name().equals(node));
  }
}
