package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The admission of new episodes against the budgets, in a fixed order (pause, breaker, max_unavailable, the failure
 * domains' budgets, fleet rate, playbook rate, cooldown); the first limit that refuses names the decision. An admitted episode that takes a node out
 * of service holds its place ({@link #reserve}) until it is {@linkplain #settle settled}: two webhooks cannot both take
 * the last unit of a budget, and no lock is held while the node is written.
 */
final class FleetAdmission {
  private static final Refusal NOT_LOADED = new Refusal(Reason.SAFETY_STATE_UNAVAILABLE,
      "fleet safety state not loaded (not leader, or its ConfigMap unreadable)");

  private final GateState g;
  private final BreakerAndPause stops;
  private final Supplier<List<NodeInfo>> selectedNodes;
  private final LongSupplier generation;
  /** Admitted episodes whose node write has not settled yet (under the lock). */
  private final List<Candidate> reservations = new ArrayList<>();
  private long countedGeneration = -1;
  private int countedSelected;
  private Set<String> countedUnavailable = Set.of();
  /** Per domain label, per value: the selected nodes of that value (under the lock, with the counts above). */
  private Map<String, Map<String, List<String>>> countedDomains = Map.of();

  FleetAdmission(GateState g, BreakerAndPause stops, Supplier<List<NodeInfo>> selectedNodes, LongSupplier generation) {
    this.g = g;
    this.stops = stops;
    this.selectedNodes = selectedNodes;
    this.generation = generation;
  }

  Optional<Refusal> reserve(Candidate c) {
    g.lock.lock();
    try {
      Optional<Refusal> refusal = refusal(c);
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
      return refusal(c);
    } finally {
      g.lock.unlock();
    }
  }

  /** Without the lock: why no episode may start at all now. */
  Optional<Refusal> stopped() {
    return g.loaded ? stops.stoppedNow() : Optional.of(NOT_LOADED);
  }

  /** The first limit that refuses {@code c}, counting the reservations not yet settled (under the lock). */
  private Optional<Refusal> refusal(Candidate c) {
    if (!g.loaded) {
      return Optional.of(NOT_LOADED);
    }
    Instant now = g.clock.instant();
    stops.autoReset(now);
    Optional<Refusal> stopped = stops.stopped(g.state, now);
    if (stopped.isPresent()) {
      return stopped;
    }
    if (c.becomesUnavailable()) {
      Optional<Refusal> capacity = capacity(c, now);
      if (capacity.isPresent()) {
        return capacity;
      }
    }
    Duration cooldown = c.cooldown().orElse(g.limits.cooldown());
    Optional<Instant> released = c.node().ledger().lastRelease(c.playbook());
    if (released.isPresent() && released.get().plus(cooldown).isAfter(now)) {
      return Optional.of(new Refusal(Reason.COOLDOWN, "playbook " + c.playbook() + " released this node at " + released.get()
          + "; cooldown " + Durations.format(cooldown) + " lasts until " + released.get().plus(cooldown)));
    }
    return Optional.empty();
  }

  /** Counts selected and unavailable nodes, again only when the cache changed (under the lock). */
  private void count() {
    long now = generation.getAsLong();
    if (now != countedGeneration) {
      List<NodeInfo> selected = selectedNodes.get();
      countedSelected = selected.size();
      countedUnavailable = selected.stream().filter(FleetGate::isUnavailable).map(NodeInfo::name)
          .collect(Collectors.toSet());
      countedDomains = Domains.byValue(g.limits.domains(), selected);
      countedGeneration = now;
    }
  }

  private Optional<Refusal> capacity(Candidate c, Instant now) {
    count();
    SafetyLimits limits = g.limits;
    int budget = limits.maxUnavailable().of(countedSelected);
    // A reservation's node counts until the cache shows it out of service; a second episode on a node
    // already reserved takes no second unit.
    Set<String> reservedNodes = reservations.stream().map(r -> r.node().name()).collect(Collectors.toSet());
    int unavailable = countedUnavailable.size()
        + (int) reservedNodes.stream().filter(n -> !countedUnavailable.contains(n)).count();
    int adds = reservedNodes.contains(c.node().name()) ? 0 : 1;
    g.listener.unavailable(unavailable, budget);
    if (unavailable + adds > budget) {
      return Optional.of(new Refusal(Reason.MAX_UNAVAILABLE, unavailable + " of " + countedSelected
          + " selected nodes are unavailable" + (reservedNodes.isEmpty() ? "" : " or being quarantined")
          + "; max_unavailable " + limits.maxUnavailable() + " allows " + budget));
    }
    for (DomainBudget d : limits.domains()) {
      String value = c.node().labels().get(d.label());
      if (value == null) {
        continue; // a node without the label is limited by the fleet budget only
      }
      DomainBudget.Usage u = Domains.usage(d, value, countedDomains, countedUnavailable, reservedNodes);
      int domainAdds = reservedNodes.contains(c.node().name()) || countedUnavailable.contains(c.node().name()) ? 0 : 1;
      if (u.unavailable() + domainAdds > u.allowed()) {
        return Optional.of(new Refusal(Reason.DOMAIN_BUDGET_EXHAUSTED, "failure domain " + d.label() + "=" + value + ": "
            + u.unavailable() + " of its " + u.selected() + " selected nodes are unavailable; its max_unavailable "
            + d.maxUnavailable() + " allows " + u.allowed()));
      }
    }
    FleetState state = g.state;
    int used = FleetState.countWithin(state.starts(), now, limits.rate().window()) + reservations.size();
    if (used + 1 > limits.rate().count()) {
      return Optional.of(new Refusal(Reason.RATE_LIMITED, "fleet rate_limit " + limits.rate() + " used: " + used
          + " quarantines started in the last " + Durations.format(limits.rate().window())));
    }
    if (c.playbookRate().isPresent()) {
      Rate own = c.playbookRate().get();
      int ownUsed = FleetState.countWithin(state.playbookStarts().getOrDefault(c.playbook(), List.of()), now, own.window())
          + (int) reservations.stream().filter(r -> r.playbook().equals(c.playbook())).count();
      if (ownUsed + 1 > own.count()) {
        return Optional.of(new Refusal(Reason.RATE_LIMITED, "playbook " + c.playbook() + " rate_limit " + own + " used: "
            + ownUsed + " quarantines started in the last " + Durations.format(own.window())));
      }
    }
    return Optional.empty();
  }
}
