package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import java.util.Optional;

/** Admits instance replacements fleet-wide ({@code safety.replace_rate_limit}, the pause, the breaker). */
@FunctionalInterface
public interface ReplaceBudget {
  /** Admits and records one replacement of the node's instance, or says why not. */
  Optional<Refusal> admit(String node);

  /** A budget that refuses every replacement: for a loop built without the safety gate. */
  ReplaceBudget NONE = node -> Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED,
      "no replacement budget is configured"));
}
