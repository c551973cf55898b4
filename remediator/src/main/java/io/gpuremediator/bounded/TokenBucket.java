package io.gpuremediator.bounded;

import java.util.function.LongSupplier;

/**
 * A token bucket, as client-go's rate limiter: {@code burst} tokens at most, refilled at {@code perSecond}. Thread-safe.
 */
public final class TokenBucket {
  private final double perNano;
  private final double burst;
  private final LongSupplier nanos;
  private double tokens;
  private long last;

  /**
   * @param nanos the time in nanoseconds ({@code System::nanoTime}; a test's own)
   */
  public TokenBucket(double perSecond, int burst, LongSupplier nanos) {
    if (perSecond <= 0 || burst < 1) {
      throw new IllegalArgumentException("a token bucket needs a positive rate and a burst of at least 1");
    }
    this.perNano = perSecond / 1e9;
    this.burst = burst;
    this.nanos = nanos;
    this.tokens = burst;
    this.last = nanos.getAsLong();
  }

  /** Takes a token if one is there. */
  public synchronized boolean tryTake() {
    return tryTakeLeaving(0);
  }

  /** Takes a token if one is there with {@code keep} more left after it (kept for callers who {@link #reserve}). */
  public synchronized boolean tryTakeLeaving(int keep) {
    refill();
    if (tokens >= 1 + keep) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  /**
   * Takes a token now, ahead of its time if need be, and says how many nanoseconds the caller must wait before using
   * it: callers queue in the order they asked, as client-go's {@code Wait} does.
   */
  public synchronized long reserve() {
    refill();
    tokens -= 1;
    return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / perNano);
  }

  /** Takes a token if one is there: 0; else, taking none, the nanoseconds until one will be. */
  public synchronized long takeOrWait() {
    refill();
    if (tokens >= 1) {
      tokens -= 1;
      return 0;
    }
    return (long) Math.ceil((1 - tokens) / perNano);
  }

  /** Whether the bucket has refilled to its burst: its caller is as good as new. */
  public synchronized boolean isFull() {
    refill();
    return tokens >= burst;
  }

  private void refill() {
    long now = nanos.getAsLong();
    tokens = Math.min(burst, tokens + (now - last) * perNano);
    last = now;
  }
}
