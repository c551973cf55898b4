package io.gpuremediator.safety;

import java.util.function.UnaryOperator;

/**
 * Where the fleet state lives between restarts and leaders (a ConfigMap in production). The leader is
 * the only writer; a write that loses a race re-reads and re-applies its change.
 */
public interface FleetStore {
  /** Reads the stored state; {@link FleetState#EMPTY} when none is stored. */
  FleetState load() throws FleetStoreException;

  /** Applies {@code change} to the stored state and stores the result; returns it. */
  FleetState update(UnaryOperator<FleetState> change) throws FleetStoreException;

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
