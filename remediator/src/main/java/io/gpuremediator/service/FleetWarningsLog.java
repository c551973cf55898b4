package io.gpuremediator.service;

import io.gpuremediator.safety.SafetySnapshot;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs, once the node watch has synced and then whenever it changes, what the fleet gate's snapshot says the selected
 * fleet makes of the limits: {@code node_selector} matching no node, or {@code max_unavailable} allowing none of the
 * selected nodes. A warning that holds is said once, not at every check; one that clears is said too.
 */
final class FleetWarningsLog {
  private static final Logger LOGGER = LoggerFactory.getLogger(FleetWarningsLog.class);
  private final BooleanSupplier synced;
  private final Supplier<SafetySnapshot> fleet;
  private List<String> said = List.of();

  FleetWarningsLog(BooleanSupplier synced, Supplier<SafetySnapshot> fleet) {
    this.synced = synced;
    this.fleet = fleet;
  }

  /** Compares the fleet with what was last said; returns what holds now. */
  synchronized List<String> check() {
    if (!synced.getAsBoolean()) {
      return said;
    }
    SafetySnapshot now = fleet.get();
    List<String> warnings = now.warnings();
    if (!warnings.equals(said)) {
      warnings.stream().filter(w -> !said.contains(w)).forEach(w -> LOGGER.warn("{}", w));
      if (warnings.isEmpty()) {
        LOGGER.info("the fleet limits allow {} of the {} selected nodes", now.maxUnavailable(), now.selectedNodes());
      }
      said = warnings;
    }
    return said;
  }
}
