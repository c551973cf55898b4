package io.gpuremediator.outbound;

/**
 * An outbound call that did not do what was asked.
 *
 * @see #retriable()
 */
public final class OutboundException extends Exception {
  private static final long serialVersionUID = 1L;
  private final boolean retriable;
  private final boolean maybeApplied;

  private OutboundException(String message, boolean retriable, boolean maybeApplied) {
    super(message);
    this.retriable = retriable;
    this.maybeApplied = maybeApplied;
  }

  /** The other side is down, slow, throttling or busy: asking again later may work. */
  public static OutboundException transientFailure(String message) {
    return new OutboundException(message, true, false);
  }

  /** The other side refused the request as it is: asking again would be refused again. */
  public static OutboundException refused(String message) {
    return new OutboundException(message, false, false);
  }

  /**
   * The request was sent and no answer came (a timeout, a connection reset): it may have been applied. A request that
   * must not be applied twice (a reboot) is then treated as sent, never sent again.
   */
  public static OutboundException unanswered(String message) {
    return new OutboundException(message, false, true);
  }

  /** Whether the request may have been applied although no answer said so. */
  public boolean maybeApplied() {
    return maybeApplied;
  }

  /** Whether asking again later may work. */
  public boolean retriable() {
    return retriable;
  }
}
