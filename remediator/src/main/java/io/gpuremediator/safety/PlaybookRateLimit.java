package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import java.util.List;
import java.util.Optional;

/** A playbook's own {@code rate_limit}: its quarantines started within the window. */
final class PlaybookRateLimit implements FleetLimit {
  @Override
  public Optional<Refusal> refuse(Candidate c, FleetView fleet) {
    if (!c.becomesUnavailable() || c.playbookRate().isEmpty()) {
      return Optional.empty();
    }
    Rate own = c.playbookRate().get();
    int used = FleetState.countWithin(fleet.state().playbookStarts().getOrDefault(c.playbook(), List.of()), fleet.now(),
        own.window()) + (int) fleet.reservations().stream().filter(r -> r.playbook().equals(c.playbook())).count();
    if (used + 1 > own.count()) {
      return Optional.of(new Refusal(Reason.RATE_LIMITED, "playbook " + c.playbook() + " rate_limit " + own + " used: "
          + used + " quarantines started in the last " + Durations.format(own.window())));
    }
    return Optional.empty();
  }
}
