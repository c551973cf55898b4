package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.FleetState.Incident;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.value.Durations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code safety.domains[].incident}: no new episode in a failure domain's value while it holds an open incident
 * ({@link DomainIncidents} opens them), whatever the other limits would allow; a node without the label is not in it.
 */
final class DomainIncidentLimit implements FleetLimit {
  @Override
  public Optional<Refusal> refuse(Candidate c, FleetView fleet) {
    for (DomainBudget d : fleet.limits().domains()) {
      String value = c.node().domainValue(d.label()).orElse(null);
      Incident open = value == null ? null : fleet.state().incidents().get(Incident.key(d.label(), value));
      if (open != null) {
        return Optional.of(new Refusal(Reason.DOMAIN_INCIDENT, "failure domain " + d.label() + "=" + value + " holds an"
            + " incident since " + open.openedAt() + " (" + open.reason() + "); no new episode starts in it until a"
            + " human resets it: POST /api/v1/safety/domains/" + d.label() + "/" + value + "/reset"));
      }
    }
    return Optional.empty();
  }

  @Override
  public List<LimitUsage> usage(FleetView fleet) {
    List<LimitUsage> out = new ArrayList<>();
    for (DomainBudget d : fleet.limits().domains()) {
      if (d.incident().isEmpty()) {
        continue;
      }
      DomainBudget.IncidentRule rule = d.incident().get();
      fleet.domains().getOrDefault(d.label(), Map.of()).forEach((value, nodes) -> {
        boolean open = fleet.state().incidents().containsKey(Incident.key(d.label(), value));
        out.add(new LimitUsage("incident[" + d.label() + "=" + value + "]", fleet.state().storm(rule.window(), nodes)
            .size(), rule.nodes(), open ? "OPEN: no new episode until a human resets it" : "nodes faulting within "
            + Durations.format(rule.window()) + " of each other"));
      });
    }
    return out;
  }
}
