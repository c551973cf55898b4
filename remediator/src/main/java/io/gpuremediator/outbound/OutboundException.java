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
  private final boolean maybeApplied;
  private final boolean unsupported;
  private final boolean mismatch;
  private final transient Optional<Duration> notBefore;

  private OutboundException(String message, boolean retriable, boolean maybeApplied, boolean unsupported,
      Optional<Duration> notBefore) {
    this(message, retriable, maybeApplied, unsupported, false, notBefore);
  }

  private OutboundException(String message, boolean retriable, boolean maybeApplied, boolean unsupported,
      boolean mismatch, Optional<Duration> notBefore) {
    super(message);
    this.retriable = retriable;
    this.maybeApplied = maybeApplied;
    this.unsupported = unsupported;
    this.mismatch = mismatch;
    this.notBefore = notBefore;
  }

  /** The other side is down, slow, throttling or busy: asking again later may work. */
  public static OutboundException transientFailure(String message) {
    return new OutboundException(message, true, false, false, Optional.empty());
  }

  /**
   * The other side says when asking again can work, and not before (an Auto Scaling instance younger than its group's
   * health-check grace period): asking again after {@code wait} may work.
   */
  public static OutboundException notYet(String message, Duration wait) {
    return new OutboundException(message, true, false, false, Optional.of(wait));
  }

  /** The other side refused the request as it is: asking again would be refused again. */
  public static OutboundException refused(String message) {
    return new OutboundException(message, false, false, false, Optional.empty());
  }

  /**
   * The other side cannot do what was asked at all, as it is built (a BMC whose system offers no reset that restarts
   * it): refused, and nothing was sent that would change anything.
   */
  public static OutboundException unsupported(String message) {
    return new OutboundException(message, false, false, true, Optional.empty());
  }

  /**
   * The other side is not the one meant (a BMC whose system is another machine than the node's): refused, and nothing
   * was sent that would change anything.
   */
  public static OutboundException mismatch(String message) {
    return new OutboundException(message, false, false, false, true, Optional.empty());
  }

  /**
   * The request was sent and no answer came (a timeout, a connection reset): it may have been applied. A request that
   * must not be applied twice (a reboot) is then treated as sent, never sent again.
   */
  public static OutboundException unanswered(String message) {
    return new OutboundException(message, false, true, false, Optional.empty());
  }

  /** How long asking again must wait at least, when the other side said so. */
  public Optional<Duration> notBefore() {
    return notBefore;
  }

  /** Whether the request may have been applied although no answer said so. */
  public boolean maybeApplied() {
    return maybeApplied;
  }

  /** Whether the other side cannot do this at all ({@link #unsupported(String)}), a kind of refusal. */
  public boolean unsupported() {
    return unsupported;
  }

  /** Whether the other side is not the one meant ({@link #mismatch(String)}), a kind of refusal. */
  public boolean mismatch() {
    return mismatch;
  }

  /** Whether asking again later may work. */
  public boolean retriable() {
    return retriable;
  }
}
