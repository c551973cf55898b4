package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Admits instance replacements fleet-wide ({@code safety.replace_rate_limit}, the pause, the breaker). */
@FunctionalInterface
public interface ReplaceLimit extends StepLimit {
  /** Admits and records one replacement of the node's instance, or says why not. */
  Optional<Refusal> admit(String node);

  /** A replacement's place is {@link #admit}: the whole node's instance. */
  @Override
  default Optional<Refusal> take(String node, String unit, Instant now) {
    return admit(node);
  }

  /** A replacement admitted stays counted in the fleet state for its window, whatever the step did. */
  @Override
  default void release(String node) {}

  /** Counted by the safety gate from the fleet state ({@code replace_rate_limit}). */
  @Override
  default List<LimitUsage> usage(Instant now) {
    return List.of();
  }

  /** A limit that refuses every replacement: for a loop built without the safety gate. */
  ReplaceLimit NONE = node -> Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED,
      "no replacement limit is configured"));
}
