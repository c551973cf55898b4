package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.FleetState.Pause;
import io.gpuremediator.safety.FleetStore.FleetStoreException;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code safety.replace_rate_limit}, the pause and the breaker, for instance replacements fleet-wide: counted under the
 * gate's lock, then stored before the answer, so no restart or new leader can let more through than the limit; a state
 * that cannot be stored refuses (the admission stays counted: fail closed).
 */
final class ReplaceRateLimit implements ReplaceLimit {
  private static final Logger LOGGER = LoggerFactory.getLogger(ReplaceRateLimit.class);

  private final GateState g;
  private final BreakerAndPause stops;

  ReplaceRateLimit(GateState g, BreakerAndPause stops) {
    this.g = g;
    this.stops = stops;
  }

  @Override
  public Optional<Refusal> admit(String node) {
    Rate rate = g.limits.replaceRate();
    int used;
    g.lock.lock();
    try {
      if (!g.loaded) {
        return Optional.of(new Refusal(Reason.SAFETY_STATE_UNAVAILABLE, "fleet safety state not loaded"));
      }
      Instant now = g.clock.instant();
      Optional<Pause> pause = stops.activePause(now);
      if (pause.isPresent()) {
        return Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED, "remediation is paused until " + pause.get().until()
            + ": " + pause.get().reason()));
      }
      if (g.state.breaker().open()) {
        return Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED, "the storm breaker is open: "
            + g.state.breaker().reason()));
      }
      used = FleetState.countWithin(g.state.replacements(), now, rate.window());
      if (used >= rate.count()) {
        return Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED, "replace_rate_limit " + rate + " used up: " + used
            + " replacements within " + Durations.format(rate.window())));
      }
      g.state = g.state.withReplacement(now).pruned(now, g.limits.retention());
    } finally {
      g.lock.unlock();
    }
    try {
      g.writer.saveNow(() -> g.state, () -> { });
    } catch (FleetStoreException e) {
      return Optional.of(new Refusal(Reason.SAFETY_STATE_UNAVAILABLE, "the replacement could not be recorded: "
          + e.getMessage()));
    }
    LOGGER.info("instance replacement of node {} admitted ({} of {} within {})", node, used + 1, rate.count(),
        Durations.format(rate.window()));
    return Optional.empty();
  }

  /** Replacements within the window, of what the limit allows. */
  static List<LimitUsage> usage(FleetView fleet) {
    Rate rate = fleet.limits().replaceRate();
    return List.of(new LimitUsage("replace_rate_limit", FleetState.countWithin(fleet.state().replacements(), fleet.now(),
        rate.window()), rate.count(), "instances replaced fleet-wide in the last " + Durations.format(rate.window())));
  }
}
