package io.gpuremediator.safety;

/** Told when fleet safety state changes, to expose it as metrics and to page people. */
public interface SafetyListener {
  /** Nothing listens. */
  SafetyListener NONE = new SafetyListener() { };

  /** The breaker opened or closed (also its state as loaded, at each start). */
  default void breaker(boolean open) {}

  /** The breaker opened just now, for this reason: a human must look (the service pages {@code safety.page}). */
  default void breakerOpened(String reason) {}

  /** A failure domain's value opened an incident just now: a human must look (the service pages {@code safety.page}). */
  default void incidentOpened(String label, String value, String reason) {}

  /** Remediation was paused or resumed. */
  default void paused(boolean paused) {}

  /** The unavailable nodes were counted for a check. */
  default void unavailable(int unavailable, int budget) {}
}
