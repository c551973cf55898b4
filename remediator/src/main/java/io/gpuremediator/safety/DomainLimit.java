package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.SafetyGate.Candidate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code safety.domains}: a budget per value of a node label (a zone, a rack, an NVLink clique), counted as the fleet's. */
final class DomainLimit implements FleetLimit {
  @Override
  public Optional<Refusal> refuse(Candidate c, FleetView fleet) {
    if (!c.becomesUnavailable()) {
      return Optional.empty();
    }
    for (DomainBudget d : fleet.limits().domains()) {
      String value = c.node().domainValue(d.label()).orElse(null);
      if (value == null) {
        continue; // a node without the label is limited by the fleet budget only
      }
      DomainBudget.Usage u = Domains.usage(d, value, fleet.domains(), fleet.unavailable(), fleet.reservedNodes());
      int adds = fleet.counts(c.node().name()) ? 0 : 1;
      if (u.unavailable() + adds > u.allowed()) {
        return Optional.of(new Refusal(Reason.DOMAIN_BUDGET_EXHAUSTED, "failure domain " + d.label() + "=" + value + ": "
            + u.unavailable() + " of its " + u.selected() + " selected nodes are unavailable; its max_unavailable "
            + d.maxUnavailable() + " allows " + u.allowed()));
      }
    }
    return Optional.empty();
  }

  @Override
  public List<LimitUsage> usage(FleetView fleet) {
    List<LimitUsage> out = new ArrayList<>();
    for (DomainBudget d : fleet.limits().domains()) {
      for (String value : fleet.domains().getOrDefault(d.label(), Map.of()).keySet()) {
        DomainBudget.Usage u = Domains.usage(d, value, fleet.domains(), fleet.unavailable(), fleet.reservedNodes());
        out.add(new LimitUsage("domains[" + d.label() + "=" + value + "]", u.unavailable(), u.allowed(),
            "of its " + u.selected() + " selected nodes, unavailable (" + d.maxUnavailable() + ")"));
      }
    }
    return out;
  }
}
