package io.gpuremediator.safety;

/**
 * Where the fleet state lives between restarts and leaders (a ConfigMap in production). The leader is
 * the only writer.
 */
public interface FleetStore {
  /** Reads the stored state; {@link FleetState#EMPTY} when none is stored. */
  FleetState load() throws FleetStoreException;

  /**
   * Stores the state. The leader's state in memory is authoritative, so a write that finds the stored
   * object changed (another writer, a former leader) overwrites it rather than merging.
   */
  void save(FleetState state) throws FleetStoreException;

  /** Tells people about a fleet-level event (the breaker opening or closing), as a Kubernetes Event where it can. */
  void announce(String reason, String message);

  /** The store could not be read or written; the safety layer then refuses (fails closed). */
  final class FleetStoreException extends Exception {
    /** Creates the exception. */
    public FleetStoreException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
