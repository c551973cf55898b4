package io.gpuremediator.outbound;

import java.net.URI;

/** Power-cycles a server through its BMC (Redfish {@code ComputerSystem.Reset}), what an in-band reboot of a hung node cannot. */
public interface BmcResets {
  /**
   * A reset the BMC was asked for.
   *
   * @param system the ComputerSystem reset ({@code /redfish/v1/Systems/<id>})
   * @param type the {@code ResetType} sent: the strongest restarting one the BMC allows
   * @param offered what the BMC said it allows, as it said it ("not stated" when it says nothing)
   */
  record Reset(String system, String type, String offered) {}

  /**
   * Asks the BMC at {@code bmc} once to restart the host's system with the strongest reset it allows.
   *
   * @throws OutboundException retriable when it was surely not applied and may be later (5xx answered, credentials
   *     rejected until they change); {@link OutboundException#unsupported(String) unsupported} when the system offers
   *     no restarting reset (nothing is sent); refused when it never will be as things are; {@link
   *     OutboundException#maybeApplied() maybe applied} when the reset was sent and no answer came
   */
  Reset restart(URI bmc) throws OutboundException;

  /** A port for a service configured without Redfish: every call is refused, saying so. */
  BmcResets NOT_CONFIGURED = bmc -> {
    throw OutboundException.refused("no Redfish credentials are configured (cloud.redfish in the service config)");
  };
}
