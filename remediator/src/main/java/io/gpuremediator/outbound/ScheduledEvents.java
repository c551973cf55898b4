package io.gpuremediator.outbound;

import java.util.List;

/** Reads the cloud's scheduled events of the service's instances (EC2 {@code DescribeInstanceStatus}). */
public interface ScheduledEvents {
  /**
   * Every scheduled event of the region's instances that have one, over or not (the caller reads which are pending).
   *
   * @throws OutboundException when the cloud did not answer in full: nothing is to be concluded from a part
   */
  List<ScheduledEvent> scheduled() throws OutboundException;
}
