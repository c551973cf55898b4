package io.gpuremediator.safety;

import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.SafetyGate.Candidate;
import java.util.List;
import java.util.Optional;

/**
 * One limit on new episodes: a row of {@link FleetLimits#ROWS}, checked in their order by the admission (under the
 * gate's lock, reservations counted); the first that refuses names the decision, with its reason code. What it has
 * used is shown by {@code GET /api/v1/safety} ({@code limits}), the status page and {@code remediator_limit_*}.
 */
interface FleetLimit {
  /** Why {@code c} must not start under this limit, or empty. */
  Optional<Refusal> refuse(Candidate c, FleetView fleet);

  /** What the limit has used of what it allows, as the fleet is now; empty where it counts per candidate only. */
  default List<LimitUsage> usage(FleetView fleet) {
    return List.of();
  }
}
