package io.gpuremediator.kube;

import io.gpuremediator.bounded.TokenBucket;
import io.gpuremediator.node.Foreground;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the service may ask of the API server, as client-go throttles a client: a token bucket of {@code qps} requests a
 * second after a {@code burst} (a caller over it waits its turn, in order), and at most {@code writesInFlight} writes
 * at once, a webhook's calls ({@link Foreground}) served before the background's: while one is under way, the
 * background waits, while a webhook is being decided it gives way for a bounded time, and it leaves a tenth of the
 * burst in the bucket for them. Every request the node, workload and owner adapters make goes through it; the
 * informers' lists and watches, leader election and the fleet state's ConfigMap do not (a lease renewal queued behind
 * a thousand node writes would lose the lease, which is why client-go users give leader election a client of its own).
 */
final class ApiThrottle {
  /**
   * No limit that matters (for tests and tools that build an adapter on a client of their own), one per adapter; a
   * webhook's calls still come first.
   */
  static ApiThrottle unlimited() {
    return new ApiThrottle(1_000_000, 1_000_000, 1_000, GIVE_WAY_NANOS, System::nanoTime);
  }

  /**
   * How long a background call gives way to webhooks being decided (not to their calls, which it always waits for):
   * the time of a few webhooks on a busy machine, so that a stream of them slows the background and never stops it.
   */
  static final long GIVE_WAY_NANOS = 50_000_000L;

  private final TokenBucket bucket;
  private final Semaphore writes;
  private final Object turn = new Object();
  /** Foreground calls under way, from their wait for a token to their answer (guarded by {@link #turn}). */
  private int foregroundActive;
  /** How long a background caller waits before it looks for a token again: one token's time. */
  private final long backgroundPoll;
  /**
   * Tokens the background leaves in the bucket, a tenth of the burst: a busy background (drains, Jobs, diagnostics of
   * earlier episodes) that took every token as it came would make each webhook's write wait up to a token's time.
   */
  private final int foregroundReserve;
  /** At most how long a background call waits for the webhooks being decided to be answered. */
  private final long giveWayNanos;

  ApiThrottle(int qps, int burst, int writesInFlight, long giveWayNanos, LongSupplier nanos) {
    this.bucket = new TokenBucket(qps, burst, nanos);
    this.giveWayNanos = giveWayNanos;
    this.backgroundPoll = 1_000_000_000L / qps;
    this.foregroundReserve = burst / 10;
    this.writes = new Semaphore(writesInFlight, true);
  }

  /** One request to the API server, which may throw {@code E}. */
  @FunctionalInterface
  interface Call<T, E extends Exception> {
    T make() throws E;
  }

  /** Makes a read once the throttle allows it. */
  <T, E extends Exception> T read(Call<T, E> call) throws E {
    boolean foreground = begin();
    try {
      awaitToken(foreground);
      return call.make();
    } finally {
      end(foreground);
    }
  }

  /** Makes a write once the throttle allows it and a write slot is free (the token first: a slot is never held waiting). */
  <T, E extends Exception> T write(Call<T, E> call) throws E {
    boolean foreground = begin();
    try {
      awaitToken(foreground);
      writes.acquireUninterruptibly();
      try {
        return call.make();
      } finally {
        writes.release();
      }
    } finally {
      end(foreground);
    }
  }

  /**
   * Counts a {@link Foreground} call (a webhook's) as under way from its wait for a token to its answer; a background
   * call first gives way to the webhooks being decided (at most {@link #giveWayNanos}), then waits until no webhook's
   * call is under way, so the loop's looks wait while a webhook is being decided and written.
   */
  private boolean begin() {
    boolean foreground = Foreground.isCurrent();
    if (!foreground && giveWayNanos > 0) {
      Foreground.awaitNoneDeciding(giveWayNanos);
    }
    synchronized (turn) {
      if (foreground) {
        foregroundActive++;
        return true;
      }
      while (foregroundActive > 0) {
        try {
          turn.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return false;
    }
  }

  private void end(boolean foreground) {
    if (foreground) {
      synchronized (turn) {
        if (--foregroundActive == 0) {
          turn.notifyAll();
        }
      }
    }
  }

  /**
   * Waits for this caller's token: a foreground caller reserves the next one and waits its turn; a background caller
   * takes one only when one is there now with {@link #foregroundReserve} more left, and so uses what the foreground
   * leaves; a webhook then waits for a token only when webhooks alone have used the reserve.
   */
  private void awaitToken(boolean foreground) {
    try {
      if (foreground) {
        sleep(bucket.reserve());
        return;
      }
      while (!bucket.tryTakeLeaving(foregroundReserve)) {
        sleep(backgroundPoll);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A rate limit's own wait: the time it stands for, as client-go's limiter waits. */
  private static void sleep(long nanos) throws InterruptedException {
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
  }
}
