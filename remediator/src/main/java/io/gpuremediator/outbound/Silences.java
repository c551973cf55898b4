package io.gpuremediator.outbound;

import java.util.Optional;

/** Alertmanager's silences (API v2). Blocking: called from the loop's threads, never an event loop. */
public interface Silences {
  /** Who the silences we create say created them ({@code createdBy}); their comments end with {@code [<this> ...]}. */
  String CREATED_BY = "gpu-remediator";

  /**
   * Creates the silence, or updates silence {@code id}; answers the id Alertmanager gives, which may be a new
   * one (Alertmanager replaces a silence it cannot update in place).
   */
  String put(Optional<String> id, SilenceRequest silence) throws OutboundException;

  /** The id of an active or pending silence whose comment ends with {@code marker}, if any. */
  Optional<String> findByMarker(String marker) throws OutboundException;

  /**
   * Expires a silence of ours ({@link #CREATED_BY} created it, its comment carries our marker); one Alertmanager no
   * longer knows counts as expired. An id is only what a ledger says, and a ledger is written on a Node.
   *
   * @throws OutboundException refused, nothing expired, when the silence is someone else's
   */
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
