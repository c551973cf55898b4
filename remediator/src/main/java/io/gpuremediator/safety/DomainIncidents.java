package io.gpuremediator.safety;

import io.gpuremediator.safety.DomainBudget.IncidentRule;
import io.gpuremediator.safety.FleetState.Incident;
import io.gpuremediator.safety.FleetStore.FleetStoreException;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.value.Durations;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens and resets the incidents of failure domains ({@code safety.domains[].incident}). Before a new episode is
 * admitted, its node's value of each domain with a threshold is looked at: more distinct nodes of that value whose new
 * episodes started within the window of each other than the threshold allows (the breaker's storm, within one value:
 * a fabric fault on one rack's trays) open the value's incident, once: stored, paged ({@code safety.page}) and
 * announced. {@link DomainIncidentLimit} then refuses every new episode in the value until a human resets it; running
 * steps finish.
 */
final class DomainIncidents {
  private static final Logger LOGGER = LoggerFactory.getLogger(DomainIncidents.class);

  private final GateState g;

  DomainIncidents(GateState g) {
    this.g = g;
  }

  /**
   * Opens the incident of each of the candidate's domain values that now holds one (under the lock).
   *
   * @param domains per domain label, per value, the selected nodes of that value
   */
  void open(Candidate c, Map<String, Map<String, List<String>>> domains) {
    for (DomainBudget d : g.limits.domains()) {
      if (d.incident().isEmpty()) {
        continue;
      }
      String value = c.node().domainValue(d.label()).orElse(null);
      if (value == null || g.state.incidents().containsKey(Incident.key(d.label(), value))) {
        continue;
      }
      IncidentRule rule = d.incident().get();
      List<String> faulting = g.state.storm(rule.window(), domains.getOrDefault(d.label(), Map.of())
          .getOrDefault(value, List.of()));
      if (faulting.size() > rule.nodes()) {
        Instant now = g.clock.instant();
        String reason = faulting.size() + " nodes of " + d.label() + "=" + value + " started faulting within "
            + Durations.format(rule.window()) + " of each other (more than " + rule.nodes() + "): "
            + String.join(", ", faulting);
        g.persist(g.state.withIncident(new Incident(d.label(), value, now, faulting, reason)));
        LOGGER.error("DOMAIN INCIDENT: {}. No new episode in {}={} until POST /api/v1/safety/domains/{}/{}/reset",
            reason, d.label(), value, d.label(), value);
        g.listener.incidentOpened(d.label(), value, reason);
        g.writer.announceLater("RemediationDomainIncident", "Domain incident in " + d.label() + "=" + value + ": "
            + reason + ". No new episode in it until a human resets it.");
      }
    }
  }

  /**
   * A human resets the incident of {@code label=value}: new episodes in it are decided again, each under the limits,
   * and the episodes seen so far never count towards another incident or storm.
   *
   * @param valueNodes the selected nodes of that value
   * @return whether an incident was open
   */
  boolean reset(String label, String value, Collection<String> valueNodes, String by) throws FleetStoreException {
    g.lock.lock();
    try {
      if (!g.loaded) {
        throw new FleetStoreException("fleet safety state not loaded", null);
      }
      if (!g.state.incidents().containsKey(Incident.key(label, value))) {
        return false;
      }
      FleetState next = g.state.withoutIncident(label, value, valueNodes);
      g.writer.saveNow(() -> next, () -> g.state = next);
      String message = "Domain incident in " + label + "=" + value + " reset by " + by;
      LOGGER.warn("RemediationDomainIncidentReset: {}", message);
      g.writer.announce("RemediationDomainIncidentReset", message);
      return true;
    } finally {
      g.lock.unlock();
    }
  }
}
