package io.gpuremediator.safety;

/** Told when fleet safety state changes, to expose it as metrics. */
public interface SafetyListener {
  /** Nothing listens. */
  SafetyListener NONE = new SafetyListener() { };

  /** The breaker opened or closed. */
  default void breaker(boolean open) {}

  /** Remediation was paused or resumed. */
  default void paused(boolean paused) {}

  /** The unavailable nodes were counted for a check. */
  default void unavailable(int unavailable, int budget) {}
}
