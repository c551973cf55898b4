package io.gpuremediator.outbound;

import java.util.Objects;
import java.util.Optional;

/** Power-cycles a server through its BMC (Redfish {@code ComputerSystem.Reset}), what an in-band reboot of a hung node cannot. */
public interface BmcResets {
  /**
   * The node whose server is to be reset, as the API server has it now.
   *
   * @param providerId its {@code spec.providerID}, which an operator's BMC list may name it by
   * @param systemUuid its {@code status.nodeInfo.systemUUID}, which the BMC's system must have
   */
  record Target(String node, Optional<String> providerId, Optional<String> systemUuid) {
    /** Checks the parts. */
    public Target {
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(providerId, "providerId");
      Objects.requireNonNull(systemUuid, "systemUuid");
    }
  }

  /**
   * A reset the BMC was asked for.
   *
   * @param bmc the BMC's host
   * @param system the ComputerSystem reset ({@code /redfish/v1/Systems/<id>})
   * @param type the {@code ResetType} sent: the strongest restarting one the BMC allows
   * @param offered what the BMC said it allows, as it said it ("not stated" when it says nothing)
   */
  record Reset(String bmc, String system, String type, String offered) {}

  /**
   * Asks the node's BMC (the one an operator wrote for it) once to restart the host's system with the strongest reset
   * it allows, once the system is seen to be the node's machine.
   *
   * @throws OutboundException retriable when it was surely not applied and may be later (5xx answered, credentials
   *     rejected until they change); {@link OutboundException#unsupported(String) unsupported} when the system offers
   *     no restarting reset; {@link OutboundException#mismatch(String) mismatch} when the system is another machine
   *     (nothing is sent in either case); refused when it never will be as things are (no BMC written for the node);
   *     {@link OutboundException#maybeApplied() maybe applied} when the reset was sent and no answer came
   */
  Reset restart(Target target) throws OutboundException;

  /** A port for a service configured without Redfish: every call is refused, saying so. */
  BmcResets NOT_CONFIGURED = target -> {
    throw OutboundException.refused("no Redfish BMCs are configured (cloud.redfish in the service config)");
  };
}
