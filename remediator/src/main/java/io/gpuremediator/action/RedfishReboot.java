package io.gpuremediator.action;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.OutboundException;
import java.time.Duration;

/**
 * {@code method: redfish}: the node's BMC as an operator wrote it ({@code cloud.redfish.bmcs}), once its system is seen
 * to be the node's machine, {@code ComputerSystem.Reset} with the strongest restarting type its system allows; a system
 * that allows none is {@code reboot_unsupported}, another machine's is {@code bmc_mismatch}.
 */
final class RedfishReboot implements RebootWay {
  @Override
  public String description() {
    return "its BMC (Redfish ComputerSystem.Reset, the strongest restart it allows)";
  }

  @Override
  public String ask(LongStepRun<?> run, String image, Duration timeout) throws OutboundException {
    NodeIdentity id;
    try {
      id = run.ports().cluster().identity(run.node());
    } catch (ClusterException e) {
      throw e.isTransient() ? OutboundException.transientFailure("the node's providerID and systemUUID could not be read: "
          + e.getMessage()) : OutboundException.mismatch(e.getMessage());
    }
    BmcResets.Reset reset = run.ports().outside().bmcs()
        .restart(new BmcResets.Target(run.node(), id.providerId(), id.systemUuid()));
    return "BMC " + reset.bmc() + " of " + run.node() + " asked to reset " + reset.system() + " with " + reset.type()
        + " (Redfish ComputerSystem.Reset; it allows " + reset.offered() + ")";
  }
}
