package io.gpuremediator.safety;

import java.util.List;

/**
 * Every limit on new episodes, one row each, in the order they are checked (after the pause and the breaker, which
 * stop every episode): the first that refuses names the decision. A new limit is one class and one row here, with its
 * config key in {@link SafetyLimits} and its reason code.
 */
final class FleetLimits {
  static final List<FleetLimit> ROWS = List.of(
      new DomainIncidentLimit(),
      new MaxUnavailableLimit(),
      new DomainLimit(),
      new FleetRateLimit(),
      new PlaybookRateLimit(),
      new CooldownLimit());

  private FleetLimits() {}
}
