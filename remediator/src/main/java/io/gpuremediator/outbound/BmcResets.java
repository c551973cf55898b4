package io.gpuremediator.outbound;

import java.net.URI;

/** Power-cycles a server through its BMC (Redfish {@code ComputerSystem.Reset}), what an in-band reboot of a hung node cannot. */
public interface BmcResets {
  /**
   * Asks the BMC at {@code bmc} once to force-restart its system.
   *
   * @throws OutboundException retriable when it was surely not applied and may be later (5xx answered, credentials
   *     rejected until they change); refused when it never will be as things are; {@link OutboundException#maybeApplied()
   *     maybe applied} when the reset was sent and no answer came
   */
  void forceRestart(URI bmc) throws OutboundException;

  /** A port for a service configured without Redfish: every call is refused, saying so. */
  BmcResets NOT_CONFIGURED = bmc -> {
    throw OutboundException.refused("no Redfish credentials are configured (cloud.redfish in the service config)");
  };
}
