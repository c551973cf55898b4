package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.value.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** {@code safety.cooldown} (or the playbook's own): a playbook may not act on a node it released within it. */
final class CooldownLimit implements FleetLimit {
  @Override
  public Optional<Refusal> refuse(Candidate c, FleetView fleet) {
    Duration cooldown = c.cooldown().orElse(fleet.limits().cooldown());
    Optional<Instant> released = c.node().ledger().lastRelease(c.playbook());
    if (released.isPresent() && released.get().plus(cooldown).isAfter(fleet.now())) {
      return Optional.of(new Refusal(Reason.COOLDOWN, "playbook " + c.playbook() + " released this node at "
          + released.get() + "; cooldown " + Durations.format(cooldown) + " lasts until " + released.get().plus(cooldown)));
    }
    return Optional.empty();
  }
}
