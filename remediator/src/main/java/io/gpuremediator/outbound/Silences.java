package io.gpuremediator.outbound;

import java.util.Optional;

/** Alertmanager's silences (API v2). Blocking: called from the loop's threads, never an event loop. */
public interface Silences {
  /**
   * Creates the silence, or updates silence {@code id}; answers the id Alertmanager gives, which may be a new
   * one (Alertmanager replaces a silence it cannot update in place).
   */
  String put(Optional<String> id, SilenceRequest silence) throws OutboundException;

  /** The id of an active or pending silence whose comment ends with {@code marker}, if any. */
  Optional<String> findByMarker(String marker) throws OutboundException;

  /** Expires a silence; one Alertmanager no longer knows counts as expired. */
  void expire(String id) throws OutboundException;

  /** A port for a service configured without Alertmanager: every call is refused, saying so. */
  Silences NOT_CONFIGURED = new Silences() {
    private static final String WHY = "no alertmanager is configured (alertmanager.url in the service config)";

    @Override
    public String put(Optional<String> id, SilenceRequest silence) throws OutboundException {
      throw OutboundException.refused(WHY);
    }

    @Override
    public Optional<String> findByMarker(String marker) throws OutboundException {
      throw OutboundException.refused(WHY);
    }

    @Override
    public void expire(String id) throws OutboundException {
      throw OutboundException.refused(WHY);
    }
  };
}
