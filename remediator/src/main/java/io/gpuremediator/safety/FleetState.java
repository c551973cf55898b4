package io.gpuremediator.safety;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The fleet-wide state the limits need, persisted so that a restart or a new leader resumes it:
 * the breaker, the pause, quarantine starts (for the rate limits) and the new episodes seen recently
 * (for the breaker). Immutable.
 *
 * @param starts when each node became quarantined, oldest first, pruned to the longest window
 * @param playbookStarts the same per playbook
 * @param firing per node, the new episode (one the ledger did not know) last seen firing a remediation alert
 * @param acknowledged per node, the episode that was part of a storm when the breaker was reset: a human has
 *     judged it, so its re-sends never count towards a storm again
 * @param replacements when each instance replacement was admitted, oldest first (for safety.replace_rate_limit)
 * @param incidents the open incidents of failure domains, by {@code label=value}: each holds until a human resets it
 */
public record FleetState(
    Breaker breaker,
    Optional<Pause> pause,
    List<Instant> starts,
    Map<String, List<Instant>> playbookStarts,
    Map<String, Sighting> firing,
    Map<String, Sighting> acknowledged,
    List<Instant> replacements,
    Map<String, Incident> incidents) {

  /** A fleet with nothing remembered. */
  public static final FleetState EMPTY = new FleetState(Breaker.CLOSED, Optional.empty(), List.of(), Map.of(), Map.of(), Map.of());

  /** A state with no replacement recorded. */
  public FleetState(Breaker breaker, Optional<Pause> pause, List<Instant> starts, Map<String, List<Instant>> playbookStarts,
      Map<String, Sighting> firing, Map<String, Sighting> acknowledged) {
    this(breaker, pause, starts, playbookStarts, firing, acknowledged, List.of());
  }

  /** A state with no incident open. */
  public FleetState(Breaker breaker, Optional<Pause> pause, List<Instant> starts, Map<String, List<Instant>> playbookStarts,
      Map<String, Sighting> firing, Map<String, Sighting> acknowledged, List<Instant> replacements) {
    this(breaker, pause, starts, playbookStarts, firing, acknowledged, replacements, Map.of());
  }

  /** Copies the collections. */
  public FleetState {
    Objects.requireNonNull(breaker, "breaker");
    Objects.requireNonNull(pause, "pause");
    // Times are kept in order, oldest first: pruning looks at the first, a rate limit counts by binary search.
    starts = Times.of(starts);
    if (!(playbookStarts instanceof FrozenMap)) {
      TreeMap<String, List<Instant>> copy = new TreeMap<>();
      playbookStarts.forEach((k, v) -> copy.put(k, Times.of(v)));
      playbookStarts = FrozenMap.adopt(copy);
    }
    // Frozen maps are shared between versions, not copied: a webhook makes a new version, and a storm has thousands.
    firing = layered(firing);
    acknowledged = layered(acknowledged);
    replacements = Times.of(replacements);
    incidents = FrozenMap.of(incidents);
  }

  /**
   * A failure domain's open incident: more distinct nodes of one value faulting within the window than it allows.
   *
   * @param nodes the nodes that made it, sorted
   */
  public record Incident(String label, String value, Instant openedAt, List<String> nodes, String reason) {
    /** Copies the nodes. */
    public Incident {
      nodes = List.copyOf(nodes);
    }

    /** How incidents are keyed: {@code label=value}. */
    public static String key(String label, String value) {
      return label + "=" + value;
    }
  }

  /** The state with this incident open. */
  public FleetState withIncident(Incident opened) {
    TreeMap<String, Incident> next = FrozenMap.thaw(incidents);
    next.put(Incident.key(opened.label(), opened.value()), opened);
    return new FleetState(breaker, pause, starts, playbookStarts, firing, acknowledged, replacements, FrozenMap.adopt(next));
  }

  /**
   * The state with the incident of {@code label=value} reset by a human: the episodes of its value's nodes seen so far
   * are acknowledged, as a breaker reset acknowledges a storm's, so their re-sends are decided one by one.
   */
  public FleetState withoutIncident(String label, String value, Collection<String> valueNodes) {
    TreeMap<String, Incident> next = FrozenMap.thaw(incidents);
    next.remove(Incident.key(label, value));
    LayeredMap<Sighting> live = layered(firing);
    TreeMap<String, Sighting> left = live.thaw();
    TreeMap<String, Sighting> acked = new TreeMap<>();
    for (String node : valueNodes) {
      Sighting seen = left.remove(node);
      if (seen != null) {
        acked.put(node, seen);
      }
    }
    return new FleetState(breaker, pause, starts, playbookStarts, LayeredMap.adopt(left, live.seenFrom()),
        layered(acknowledged).with(acked, live.seenFrom()), replacements, FrozenMap.adopt(next));
  }

  /** The state with an instance replacement admitted at {@code now}. */
  public FleetState withReplacement(Instant now) {
    return new FleetState(breaker, pause, starts, playbookStarts, firing, acknowledged, Times.with(replacements, now), incidents);
  }

  /**
   * An episode seen in a webhook.
   *
   * @param startedAt when its alert started firing (Alertmanager's startsAt)
   * @param seenAt when a webhook last carried it
   */
  public record Sighting(Instant startedAt, Instant seenAt) {}

  /**
   * The storm breaker.
   *
   * @param openedAt when it opened; {@code Instant.EPOCH} when closed
   * @param reason why it opened, for people
   */
  public record Breaker(boolean open, Instant openedAt, String reason) {
    /** A closed breaker. */
    public static final Breaker CLOSED = new Breaker(false, Instant.EPOCH, "");
  }

  /** An operator's pause, with its reason and expiry. */
  public record Pause(String reason, Instant until, Instant since, String by) {}

  /** The number of times within {@code window} before {@code now}: after {@code now - window}, not after {@code now}. */
  public static int countWithin(List<Instant> times, Instant now, Duration window) {
    return Times.countWithin(times, now, window);
  }

  /** The state with a quarantine start recorded at {@code now} for a playbook. */
  public FleetState withStart(String playbook, Instant now) {
    TreeMap<String, List<Instant>> byPlaybook = FrozenMap.thaw(playbookStarts);
    byPlaybook.put(playbook, Times.with(byPlaybook.getOrDefault(playbook, List.of()), now));
    return new FleetState(breaker, pause, Times.with(starts, now), FrozenMap.adopt(byPlaybook), firing, acknowledged,
        replacements, incidents);
  }

  /**
   * The state with these nodes' new episodes seen at {@code now}, each by the time it started (the later start
   * wins). An episode acknowledged at a breaker reset is only seen again, never counted.
   */
  public FleetState withFiring(Map<String, Instant> startedAt, Instant now) {
    TreeMap<String, Sighting> seen = new TreeMap<>();
    TreeMap<String, Sighting> seenAgain = new TreeMap<>();
    startedAt.forEach((node, t) -> {
      Sighting acked = acknowledged.get(node);
      Sighting known = firing.get(node);
      if (acked != null && acked.startedAt().equals(t)) {
        seenAgain.put(node, new Sighting(t, now));
      } else {
        seen.put(node, known != null && t.isBefore(known.startedAt()) ? new Sighting(known.startedAt(), now) : new Sighting(t, now));
      }
    });
    return new FleetState(breaker, pause, starts, playbookStarts, layered(firing).with(seen, now),
        layered(acknowledged).with(seenAgain, now), replacements, incidents);
  }

  /**
   * The storm: the most nodes whose new episodes started within {@code window} of each other, whenever that was
   * (a backlog Alertmanager delivers late is the same storm as a live one), sorted by name.
   */
  public List<String> storm(Duration window) {
    return storm(window, firing.keySet());
  }

  /** The same storm among {@code nodes} only (a failure domain's value). */
  public List<String> storm(Duration window, Collection<String> nodes) {
    List<Map.Entry<String, Sighting>> byStart = new ArrayList<>();
    for (String node : nodes) {
      Sighting seen = firing.get(node);
      if (seen != null) {
        byStart.add(Map.entry(node, seen));
      }
    }
    byStart.sort(Comparator.comparing(e -> e.getValue().startedAt()));
    int bestFrom = 0;
    int bestTo = 0;
    int from = 0;
    for (int to = 0; to < byStart.size(); to++) {
      Instant last = byStart.get(to).getValue().startedAt();
      while (Duration.between(byStart.get(from).getValue().startedAt(), last).compareTo(window) > 0) {
        from++;
      }
      if (to + 1 - from > bestTo - bestFrom) {
        bestFrom = from;
        bestTo = to + 1;
      }
    }
    return byStart.subList(bestFrom, bestTo).stream().map(Map.Entry::getKey).sorted().toList();
  }

  /**
   * The state with another breaker. Closing it (a reset) acknowledges the episodes seen so far: the storm is
   * forgotten, and its alerts, still re-sent, are decided one by one under the other limits.
   */
  public FleetState withBreaker(Breaker next) {
    if (next.open()) {
      return new FleetState(next, pause, starts, playbookStarts, firing, acknowledged, replacements, incidents);
    }
    LayeredMap<Sighting> live = layered(firing);
    return new FleetState(next, pause, starts, playbookStarts, Map.of(), layered(acknowledged).with(live, live.seenFrom()),
        replacements, incidents);
  }

  /** The state with another pause. */
  public FleetState withPause(Optional<Pause> next) {
    return new FleetState(breaker, next, starts, playbookStarts, firing, acknowledged, replacements, incidents);
  }

  /**
   * The state without what no window can see any more (so the stored form stays small): starts older than
   * {@code longestWindow}, episodes no webhook carried for as long (Alertmanager re-sends what still fires at
   * least hourly), an expired pause. Sightings are one per node at most.
   */
  public FleetState pruned(Instant now, Duration longestWindow) {
    Instant from = now.minus(longestWindow);
    if (!anythingBefore(from, now)) {
      return this; // each webhook prunes: most find nothing old, and copying the state is what costs
    }
    TreeMap<String, List<Instant>> byPlaybook = new TreeMap<>();
    playbookStarts.forEach((k, v) -> {
      List<Instant> kept = Times.after(v, from);
      if (!kept.isEmpty()) {
        byPlaybook.put(k, kept);
      }
    });
    Optional<Pause> livePause = pause.filter(p -> p.until().isAfter(now));
    return new FleetState(breaker, livePause, Times.after(starts, from), FrozenMap.adopt(byPlaybook), seenSince(firing, from),
        seenSince(acknowledged, from), Times.after(replacements, from), incidents);
  }

  /**
   * Whether pruning at {@code now} may change anything: an old time, an expired pause, a playbook with no start left, a
   * sighting that may be old (its bound says so; the pruned state's bound is exact). No scan: each webhook asks.
   */
  private boolean anythingBefore(Instant from, Instant now) {
    if (pause.isPresent() && !pause.get().until().isAfter(now) || Times.anyNotAfter(starts, from)
        || Times.anyNotAfter(replacements, from)) {
      return true;
    }
    for (List<Instant> times : playbookStarts.values()) {
      if (times.isEmpty() || Times.anyNotAfter(times, from)) {
        return true;
      }
    }
    return !layered(firing).seenFrom().isAfter(from) || !layered(acknowledged).seenFrom().isAfter(from);
  }

  /** Sightings as versions share them (see {@link LayeredMap}): {@code sightings} itself when they are already. */
  private static LayeredMap<Sighting> layered(Map<String, Sighting> sightings) {
    return LayeredMap.frozen(sightings, Sighting::seenAt);
  }

  /** The sightings seen after {@code from}, frozen with their exact bound (one pass, one copy). */
  private static Map<String, Sighting> seenSince(Map<String, Sighting> sightings, Instant from) {
    TreeMap<String, Sighting> kept = new TreeMap<>();
    Instant oldest = Instant.MAX;
    for (Map.Entry<String, Sighting> e : sightings.entrySet()) {
      Instant seenAt = e.getValue().seenAt();
      if (seenAt.isAfter(from)) {
        kept.put(e.getKey(), e.getValue());
        oldest = seenAt.isBefore(oldest) ? seenAt : oldest;
      }
    }
    return LayeredMap.adopt(kept, oldest);
  }
}
