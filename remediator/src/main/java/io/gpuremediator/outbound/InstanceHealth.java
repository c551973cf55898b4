package io.gpuremediator.outbound;

/** Marks a cloud instance unhealthy, so that its Auto Scaling group terminates and replaces it. */
public interface InstanceHealth {
  /** What marking found. */
  enum Marked {
    /** The instance was healthy and is now marked unhealthy. */
    MARKED,
    /** It was already marked unhealthy (by us before a restart, or by its group): nothing was sent. */
    ALREADY_UNHEALTHY
  }

  /**
   * Looks the instance up first (so that a call already made, its answer lost, is not made again), then marks it
   * unhealthy, respecting the group's health check grace period.
   *
   * @throws OutboundException not retriable when the instance is in no group; retriable when throttled or busy
   */
  Marked markUnhealthy(ProviderId.Aws instance) throws OutboundException;

  /** A port for a service configured without a cloud: every call is refused, saying so. */
  InstanceHealth NOT_CONFIGURED = instance -> {
    throw OutboundException.refused("no cloud is configured (cloud.aws in the service config)");
  };
}
