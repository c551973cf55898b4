package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.SafetyGate.Candidate;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@code safety.max_unavailable}: selected nodes unschedulable, NotReady or quarantined, whoever caused it. */
final class MaxUnavailableLimit implements FleetLimit {
  @Override
  public Optional<Refusal> refuse(Candidate c, FleetView fleet) {
    if (!c.becomesUnavailable()) {
      return Optional.empty();
    }
    int budget = fleet.limits().maxUnavailable().of(fleet.selected());
    Set<String> reserved = fleet.reservedNodes();
    int unavailable = unavailable(fleet);
    int adds = reserved.contains(c.node().name()) ? 0 : 1;
    if (unavailable + adds > budget) {
      return Optional.of(new Refusal(Reason.MAX_UNAVAILABLE, unavailable + " of " + fleet.selected()
          + " selected nodes are unavailable" + (reserved.isEmpty() ? "" : " or being quarantined")
          + "; max_unavailable " + fleet.limits().maxUnavailable() + " allows " + budget));
    }
    return Optional.empty();
  }

  /** The unavailable nodes, and the reserved ones the cache does not show out of service yet. */
  static int unavailable(FleetView fleet) {
    return fleet.unavailable().size()
        + (int) fleet.reservedNodes().stream().filter(n -> !fleet.unavailable().contains(n)).count();
  }

  @Override
  public List<LimitUsage> usage(FleetView fleet) {
    return List.of(new LimitUsage("max_unavailable", unavailable(fleet), fleet.limits().maxUnavailable().of(fleet.selected()),
        "of " + fleet.selected() + " selected nodes, unschedulable, NotReady or quarantined (" + fleet.limits().maxUnavailable()
        + ")"));
  }
}
