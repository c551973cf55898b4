package io.gpuremediator.action;

import io.gpuremediator.outbound.OutboundException;
import java.time.Duration;

/**
 * One way a node is rebooted ({@code reboot: {method}}), a value of {@link RebootAction.Method}: what decisions call
 * it, and the one request that asks for the reboot. Every failure before the request leaves is a transient one
 * (nothing was sent): the intent is cleared and asked again, never left to look like a reboot asked.
 */
interface RebootWay {
  /** How {@code explain} and a dry run name it: "EC2 RebootInstances". */
  String description();

  /**
   * Asks for the reboot of the run's node; says what was done.
   *
   * @param image the reboot Job's image, for a way that runs one
   * @param timeout the step's timeout, for a Job's deadline
   */
  String ask(LongStepRun<?> run, String image, Duration timeout) throws OutboundException;
}
