package io.gpuremediator.service;

import io.gpuremediator.safety.BudgetWarnings;
import io.gpuremediator.value.Budget;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs, once the node watch has synced and then whenever it changes, that the selected fleet makes a limit do nothing:
 * {@code node_selector} matching no node, or {@code max_unavailable} allowing none of the selected nodes. A warning
 * that holds is said once, not at every check; one that clears is said too.
 */
final class FleetWarningsLog {
  private static final Logger LOGGER = LoggerFactory.getLogger(FleetWarningsLog.class);
  private final BooleanSupplier synced;
  private final IntSupplier selectedNodes;
  private final Budget maxUnavailable;
  private List<String> said = List.of();

  FleetWarningsLog(BooleanSupplier synced, IntSupplier selectedNodes, Budget maxUnavailable) {
    this.synced = synced;
    this.selectedNodes = selectedNodes;
    this.maxUnavailable = maxUnavailable;
  }

  /** Compares the fleet with what was last said; returns what holds now. */
  synchronized List<String> check() {
    if (!synced.getAsBoolean()) {
      return said;
    }
    int selected = selectedNodes.getAsInt();
    List<String> now = BudgetWarnings.forFleet(selected, maxUnavailable.of(selected));
    if (!now.equals(said)) {
      now.stream().filter(w -> !said.contains(w)).forEach(w -> LOGGER.warn("{}", w));
      if (now.isEmpty()) {
        LOGGER.info("the fleet limits allow {} of the {} selected nodes", maxUnavailable.of(selected), selected);
      }
      said = now;
    }
    return said;
  }
}
