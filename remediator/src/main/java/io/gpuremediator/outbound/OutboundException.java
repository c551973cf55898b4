package io.gpuremediator.outbound;

/**
 * An outbound call that did not do what was asked.
 *
 * @see #retriable()
 */
public final class OutboundException extends Exception {
  private static final long serialVersionUID = 1L;
  private final boolean retriable;

  private OutboundException(String message, boolean retriable) {
    super(message);
    this.retriable = retriable;
  }

  /** The other side is down, slow, throttling or busy: asking again later may work. */
  public static OutboundException transientFailure(String message) {
    return new OutboundException(message, true);
  }

  /** The other side refused the request as it is: asking again would be refused again. */
  public static OutboundException refused(String message) {
    return new OutboundException(message, false);
  }

  /** Whether asking again later may work. */
  public boolean retriable() {
    return retriable;
  }
}
