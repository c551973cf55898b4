package io.gpuremediator.outbound;

import java.time.Duration;
import java.util.Optional;

/**
 * An outbound call that did not do what was asked.
 *
 * @see #retriable()
 */
public final class OutboundException extends Exception {
  private static final long serialVersionUID = 1L;
  private final boolean retriable;
  private final transient Optional<Duration> retryAfter;

  private OutboundException(String message, boolean retriable, Optional<Duration> retryAfter) {
    super(message);
    this.retriable = retriable;
    this.retryAfter = retryAfter;
  }

  /** The other side is down, slow, throttling or busy: asking again later may work. */
  public static OutboundException transientFailure(String message, Optional<Duration> retryAfter) {
    return new OutboundException(message, true, retryAfter);
  }

  /** The other side refused the request as it is: asking again would be refused again. */
  public static OutboundException refused(String message) {
    return new OutboundException(message, false, Optional.empty());
  }

  /** Whether asking again later may work. */
  public boolean retriable() {
    return retriable;
  }

  /** How long the other side asked us to wait, if it said. */
  public Optional<Duration> retryAfter() {
    return retryAfter;
  }
}
