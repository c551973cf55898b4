package io.gpuremediator.bench;

import io.gpuremediator.safety.FleetState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What the fleet state costs a webhook as it remembers more nodes: each webhook that names a new episode records its
 * sighting (the breaker's observation), counts the rate limits' starts and records its start, pruning as it goes. Timed
 * in this JVM over a state that already remembers 1,000 and then 20,000 nodes' new episodes of the day it keeps, and a
 * day of starts at 100 an hour (the rate limits bound the starts; the sightings grow with the fleet).
 */
final class FleetStateCost {
  private static final int WEBHOOKS = 2_000;
  private static final int ROUNDS = 7;
  /** What the state keeps (SafetyLimits.retention(): the longest window, at least a day). */
  private static final Duration RETENTION = Duration.ofDays(1);
  private static final Duration RATE_WINDOW = Duration.ofHours(1);
  private static final int STARTS = 2_400;

  private FleetStateCost() {}

  static void run() {
    double small = microsPerWebhook(1_000);
    double large = microsPerWebhook(20_000);
    System.out.printf(Locale.ROOT, "per webhook naming a new episode: %.1f us with 1,000 nodes remembered, %.1f us with 20,000"
        + " (and %,d starts; median of %d rounds of %,d webhooks each)%n", small, large, STARTS, ROUNDS, WEBHOOKS);
    // Linear in what it remembers, 20 times the nodes would cost about 20 times as much; its layers grow as the root.
    double bound = Math.sqrt(20);
    System.out.printf(Locale.ROOT, "the cost with 20,000 nodes remembered is %.2fx the cost with 1,000; target <= %.1fx (the"
        + " square root of 20 times the nodes, not 20 times) -> %s%n", large / small, bound, large <= bound * small ? "MET"
        : "NOT MET");
  }

  /** The median time a webhook's fleet-state work takes over a state that remembers {@code remembered} nodes. */
  private static double microsPerWebhook(int remembered) {
    List<Double> rounds = new ArrayList<>();
    long checksum = 0;
    for (int round = 0; round < ROUNDS; round++) {
      Instant t0 = Instant.parse("2026-11-28T00:00:00Z");
      List<Instant> starts = new ArrayList<>();
      for (int i = 0; i < STARTS; i++) {
        starts.add(t0.plusSeconds(i * 36L));
      }
      Map<String, FleetState.Sighting> seen = new LinkedHashMap<>();
      for (int i = 0; i < remembered; i++) {
        Instant at = t0.plusMillis(i * 4_000L);
        seen.put("gpu-node-" + i, new FleetState.Sighting(at, at));
      }
      FleetState state = new FleetState(FleetState.Breaker.CLOSED, Optional.empty(), starts, Map.of("gpu-reset", starts), seen,
          Map.of());
      long started = System.nanoTime();
      for (int i = 0; i < WEBHOOKS; i++) {
        Instant now = t0.plusSeconds(STARTS * 36L).plusMillis(i);
        state = state.withFiring(Map.of("new-node-" + i, now), now).pruned(now, RETENTION);
        checksum += FleetState.countWithin(state.starts(), now, RATE_WINDOW);
        checksum += FleetState.countWithin(state.playbookStarts().get("gpu-reset"), now, RATE_WINDOW);
        state = state.withStart("gpu-reset", now).pruned(now, RETENTION);
      }
      rounds.add((System.nanoTime() - started) / 1e3 / WEBHOOKS);
    }
    if (checksum == 42) {
      System.out.println(); // keeps the counts from being optimised away
    }
    Collections.sort(rounds);
    return rounds.get(rounds.size() / 2);
  }
}
