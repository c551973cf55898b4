package io.gpuremediator.action;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.ProviderId;
import java.time.Duration;

/** {@code method: aws}: EC2 {@code RebootInstances} for the instance the node's providerID names. */
final class Ec2Reboot implements RebootWay {
  @Override
  public String description() {
    return "EC2 RebootInstances";
  }

  @Override
  public String ask(LongStepRun<?> run, String image, Duration timeout) throws OutboundException {
    ProviderId id;
    try {
      id = ProviderId.parse(run.ports().cluster().identity(run.node()).providerId().orElse(null));
    } catch (ClusterException e) {
      throw e.isTransient() ? OutboundException.transientFailure("the node's providerID could not be read: "
          + e.getMessage()) : OutboundException.refused(e.getMessage());
    }
    if (!(id instanceof ProviderId.Aws aws)) {
      throw OutboundException.refused("its providerID is " + ((ProviderId.Unsupported) id).seen());
    }
    run.ports().outside().instanceReboots().reboot(aws);
    return "EC2 instance " + aws.instanceId() + " of " + run.node() + " asked to reboot (RebootInstances)";
  }
}
