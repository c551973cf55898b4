package io.gpuremediator.outbound;

/** Sends a message to a named receiver, off the caller's path. */
public interface Notifier {
  /** Outcome of handing a message over. */
  enum Queued {
    /** Queued for sending (sent later, retried with backoff). */
    QUEUED,
    /** The queue is full: dropped and counted, never waited for. */
    DROPPED,
    /** No receiver of that name is configured. */
    UNKNOWN_RECEIVER
  }

  /** Hands a message over; never blocks. */
  Queued send(Notification n);

  /** A notifier with no receivers. */
  Notifier NONE = n -> Queued.UNKNOWN_RECEIVER;

  /**
   * One message.
   *
   * @param receiver the configured receiver's name
   * @param text the message for people
   * @param node the node it is about
   * @param stage the episode's stage code when sent, or empty
   * @param reason the decision's reason code, or empty
   */
  record Notification(String receiver, String text, String node, String stage, String reason) {}
}
