package io.gpuremediator.kube;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How long this instance may still act on its Lease. A renewal that succeeded at monotonic time t holds the Lease
 * until t + leaseDuration as other instances see it; this instance trusts it only until t + renewDeadline, which
 * leaves them a margin. A process paused past that (SIGSTOP, a long GC, a frozen VM) wakes up no longer trusting
 * its leadership, before the elector's next renewal attempt has noticed anything: its first write is already refused.
 */
final class LeaseTrust {
  private final long trustNanos;
  private final LongSupplier nanos;
  private volatile long renewedAt;
  private volatile boolean renewedOnce;

  LeaseTrust(Duration renewDeadline, LongSupplier nanos) {
    this.trustNanos = renewDeadline.toNanos();
    this.nanos = nanos;
  }

  /** The monotonic time now, to pass to {@link #renewed} once the renewal that starts now has succeeded. */
  long now() {
    return nanos.getAsLong();
  }

  /** A create or update of the Lease sent at {@code sentAt} succeeded. */
  void renewed(long sentAt) {
    renewedAt = sentAt;
    renewedOnce = true;
  }

  /** Whether the last successful renewal is recent enough to act on. */
  boolean holds() {
    return renewedOnce && nanos.getAsLong() - renewedAt < trustNanos;
  }
}
