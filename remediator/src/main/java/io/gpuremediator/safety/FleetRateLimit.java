package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import java.util.List;
import java.util.Optional;

/** {@code safety.rate_limit}: quarantines started fleet-wide within the window. */
final class FleetRateLimit implements FleetLimit {
  @Override
  public Optional<Refusal> refuse(Candidate c, FleetView fleet) {
    if (!c.becomesUnavailable()) {
      return Optional.empty();
    }
    Rate rate = fleet.limits().rate();
    int used = used(fleet) + fleet.reservations().size();
    if (used + 1 > rate.count()) {
      return Optional.of(new Refusal(Reason.RATE_LIMITED, "fleet rate_limit " + rate + " used: " + used
          + " quarantines started in the last " + Durations.format(rate.window())));
    }
    return Optional.empty();
  }

  private static int used(FleetView fleet) {
    return FleetState.countWithin(fleet.state().starts(), fleet.now(), fleet.limits().rate().window());
  }

  @Override
  public List<LimitUsage> usage(FleetView fleet) {
    Rate rate = fleet.limits().rate();
    return List.of(new LimitUsage("rate_limit", used(fleet), rate.count(), "quarantines started fleet-wide in the last "
        + Durations.format(rate.window())));
  }
}
