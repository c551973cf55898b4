package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.SafetyGate.Candidate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The admission of new episodes: the pause and the breaker first, then the incidents the candidate's failure domains
 * now hold are opened ({@link DomainIncidents}), then every limit of {@link FleetLimits#ROWS} in its order; the first
 * that refuses names the decision. An admitted episode that takes a node out of service holds its
 * place ({@link #reserve}) until it is {@linkplain #settle settled}: two webhooks cannot both take the last unit of a
 * budget, and no lock is held while the node is written.
 */
final class FleetAdmission {
  private static final Refusal NOT_LOADED = new Refusal(Reason.SAFETY_STATE_UNAVAILABLE,
      "fleet safety state not loaded (not leader, or its ConfigMap unreadable)");

  private final GateState g;
  private final BreakerAndPause stops;
  private final DomainIncidents incidents;
  /** The selected fleet as counted at the last admission (under the lock). */
  private final FleetCounts counts;
  /** Admitted episodes whose node write has not settled yet (under the lock). */
  private final List<Candidate> reservations = new ArrayList<>();

  FleetAdmission(GateState g, BreakerAndPause stops, DomainIncidents incidents, SelectedFleet selected) {
    this.g = g;
    this.stops = stops;
    this.incidents = incidents;
    this.counts = new FleetCounts(selected, g.limits.domains());
  }

  Optional<Refusal> reserve(Candidate c) {
    g.lock.lock();
    try {
      Optional<Refusal> refusal = refusal(c, List.of());
      if (refusal.isEmpty() && c.becomesUnavailable()) {
        reservations.add(c);
      }
      return refusal;
    } finally {
      g.lock.unlock();
    }
  }

  /** Gives the place back, or records the start; the start is stored after the lock is let go. */
  void settle(Candidate c, boolean started) {
    if (!c.becomesUnavailable()) {
      return;
    }
    g.lock.lock();
    try {
      reservations.remove(c);
      if (!started) {
        return;
      }
      Instant now = g.clock.instant();
      g.state = g.state.withStart(c.playbook(), now).pruned(now, g.limits.retention());
    } finally {
      g.lock.unlock();
    }
    g.saveLater();
  }

  Optional<Refusal> check(Candidate c) {
    g.lock.lock();
    try {
      return refusal(c, List.of());
    } finally {
      g.lock.unlock();
    }
  }

  /** {@link #check}, counting {@code lent} (nodes lent to other work, a sweep's) as out of service beside the fleet's. */
  Optional<Refusal> checkBeside(Candidate c, List<Candidate> lent) {
    g.lock.lock();
    try {
      return refusal(c, lent);
    } finally {
      g.lock.unlock();
    }
  }

  /** Without the lock: why no episode may start at all now. */
  Optional<Refusal> stopped() {
    return g.loaded ? stops.stoppedNow() : Optional.of(NOT_LOADED);
  }

  /** The first limit that refuses {@code c}, counting the reservations not yet settled and the lent (under the lock). */
  private Optional<Refusal> refusal(Candidate c, List<Candidate> lent) {
    if (!g.loaded) {
      return Optional.of(NOT_LOADED);
    }
    Instant now = g.clock.instant();
    stops.autoReset(now);
    Optional<Refusal> stopped = stops.stopped(g.state, now);
    if (stopped.isPresent()) {
      return stopped;
    }
    counts.update();
    incidents.open(c, counts.domains());
    List<Candidate> out = reservations;
    if (!lent.isEmpty()) {
      out = new ArrayList<>(reservations);
      out.addAll(lent);
    }
    FleetView fleet = new FleetView(now, g.state, g.limits, counts.selected(), counts.unavailable(), counts.domains(), out);
    if (c.becomesUnavailable() && lent.isEmpty()) {
      g.listener.unavailable(MaxUnavailableLimit.unavailable(fleet), g.limits.maxUnavailable().of(counts.selected()));
    }
    for (FleetLimit limit : FleetLimits.ROWS) {
      Optional<Refusal> refused = limit.refuse(c, fleet);
      if (refused.isPresent()) {
        return refused;
      }
    }
    return Optional.empty();
  }
}
