package io.gpuremediator.safety;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A fleet store in memory: for the global dry-run (which writes nothing to Kubernetes), explain and tests. */
public final class InMemoryFleetStore implements FleetStore {
  private static final Logger LOGGER = LoggerFactory.getLogger(InMemoryFleetStore.class);
  private FleetState state = FleetState.EMPTY;
  private final List<String> announcements = new CopyOnWriteArrayList<>();

  @Override
  public synchronized FleetState load() {
    return state;
  }

  @Override
  public synchronized void save(FleetState next) {
    state = next;
  }

  @Override
  public void announce(String reason, String message) {
    announcements.add(reason + ": " + message);
    LOGGER.warn("{}: {}", reason, message);
  }

  /** What was announced, in order. */
  public List<String> announcements() {
    return List.copyOf(announcements);
  }
}
