package io.gpuremediator.safety;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The fleet-wide state the limits need, persisted so that a restart or a new leader resumes it:
 * the breaker, the pause, quarantine starts (for the rate limits) and the nodes seen firing
 * remediation alerts recently (for the breaker's window). Immutable.
 *
 * @param starts when each node became quarantined, newest last, pruned to the longest window
 * @param playbookStarts the same per playbook
 * @param firing the last time each node was seen with a firing remediation alert
 */
public record FleetState(
    Breaker breaker,
    Optional<Pause> pause,
    List<Instant> starts,
    Map<String, List<Instant>> playbookStarts,
    Map<String, Instant> firing) {

  /** A fleet with nothing remembered. */
  public static final FleetState EMPTY = new FleetState(Breaker.CLOSED, Optional.empty(), List.of(), Map.of(), Map.of());

  /** Copies the collections. */
  public FleetState {
    Objects.requireNonNull(breaker, "breaker");
    Objects.requireNonNull(pause, "pause");
    starts = List.copyOf(starts);
    TreeMap<String, List<Instant>> copy = new TreeMap<>();
    playbookStarts.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    playbookStarts = java.util.Collections.unmodifiableSortedMap(copy);
    firing = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(firing));
  }

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
  public record Pause(String reason, Instant until, Instant since) {}

  /** The number of starts within {@code window} before {@code now}. */
  public static int countWithin(List<Instant> times, Instant now, Duration window) {
    Instant from = now.minus(window);
    int n = 0;
    for (Instant t : times) {
      if (t.isAfter(from) && !t.isAfter(now)) {
        n++;
      }
    }
    return n;
  }

  /** The state with a quarantine start recorded at {@code now} for a playbook. */
  public FleetState withStart(String playbook, Instant now) {
    List<Instant> fleet = new ArrayList<>(starts);
    fleet.add(now);
    Map<String, List<Instant>> byPlaybook = new TreeMap<>(playbookStarts);
    List<Instant> own = new ArrayList<>(byPlaybook.getOrDefault(playbook, List.of()));
    own.add(now);
    byPlaybook.put(playbook, own);
    return new FleetState(breaker, pause, fleet, byPlaybook, firing);
  }

  /** The state with these nodes seen starting to fire at the given times (the later time wins). */
  public FleetState withFiring(Map<String, Instant> startedAt) {
    Map<String, Instant> next = new TreeMap<>(firing);
    startedAt.forEach((node, t) -> next.merge(node, t, (a, b) -> a.isAfter(b) ? a : b));
    return new FleetState(breaker, pause, starts, playbookStarts, next);
  }

  /** The state with another breaker. */
  public FleetState withBreaker(Breaker next) {
    return new FleetState(next, pause, starts, playbookStarts, next.open() ? firing : Map.of());
  }

  /** The state with another pause. */
  public FleetState withPause(Optional<Pause> next) {
    return new FleetState(breaker, next, starts, playbookStarts, firing);
  }

  /**
   * The state without what no window can see any more (so the stored form stays small): starts older than
   * {@code longestWindow}, storm observations older than {@code stormWindow}, an expired pause.
   */
  public FleetState pruned(Instant now, Duration longestWindow, Duration stormWindow) {
    Instant from = now.minus(longestWindow);
    Instant stormFrom = now.minus(stormWindow);
    List<Instant> fleet = starts.stream().filter(t -> t.isAfter(from)).toList();
    Map<String, List<Instant>> byPlaybook = new TreeMap<>();
    playbookStarts.forEach((k, v) -> {
      List<Instant> kept = v.stream().filter(t -> t.isAfter(from)).toList();
      if (!kept.isEmpty()) {
        byPlaybook.put(k, kept);
      }
    });
    Map<String, Instant> seen = new TreeMap<>();
    firing.forEach((k, v) -> {
      if (v.isAfter(stormFrom)) {
        seen.put(k, v);
      }
    });
    Optional<Pause> livePause = pause.filter(p -> p.until().isAfter(now));
    return new FleetState(breaker, livePause, fleet, byPlaybook, seen);
  }
}
