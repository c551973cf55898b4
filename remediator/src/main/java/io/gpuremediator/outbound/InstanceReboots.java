package io.gpuremediator.outbound;

/** Reboots a cloud instance through its cloud's API (EC2 {@code RebootInstances}). */
public interface InstanceReboots {
  /**
   * Asks the cloud once to reboot the instance.
   *
   * @throws OutboundException retriable when it was surely not applied and may be later (throttled, busy); refused when
   *     it never will be as things are; {@link OutboundException#maybeApplied() maybe applied} when no answer came
   */
  void reboot(ProviderId.Aws instance) throws OutboundException;

  /** A port for a service configured without a cloud: every call is refused, saying so. */
  InstanceReboots NOT_CONFIGURED = instance -> {
    throw OutboundException.refused("no cloud is configured (cloud.aws in the service config)");
  };
}
