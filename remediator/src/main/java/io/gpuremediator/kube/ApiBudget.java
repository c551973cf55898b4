package io.gpuremediator.kube;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the service may ask of the API server, as client-go budgets a client: a token bucket of {@code qps} requests a
 * second after a {@code burst} (a caller over it waits its turn, in order), and at most {@code writesInFlight} writes
 * at once. Every request the node, workload and owner adapters make goes through it; the informers' lists and watches,
 * leader election and the fleet state's ConfigMap do not (a lease renewal queued behind a thousand node writes would
 * lose the lease, which is why client-go users give leader election a client of its own).
 */
final class ApiBudget {
  /** No limit that matters: tests and tools that build an adapter on a client of their own. */
  static final ApiBudget UNLIMITED = new ApiBudget(1_000_000, 1_000_000, 1_000, System::nanoTime);

  private final TokenBucket bucket;
  private final Semaphore writes;

  ApiBudget(int qps, int burst, int writesInFlight, LongSupplier nanos) {
    this.bucket = new TokenBucket(qps, burst, nanos);
    this.writes = new Semaphore(writesInFlight, true);
  }

  /** One request to the API server, which may throw {@code E}. */
  @FunctionalInterface
  interface Call<T, E extends Exception> {
    T make() throws E;
  }

  /** Makes a read once the budget allows it. */
  <T, E extends Exception> T read(Call<T, E> call) throws E {
    awaitToken();
    return call.make();
  }

  /** Makes a write once a write slot is free and the budget allows it. */
  <T, E extends Exception> T write(Call<T, E> call) throws E {
    writes.acquireUninterruptibly();
    try {
      awaitToken();
      return call.make();
    } finally {
      writes.release();
    }
  }

  private void awaitToken() {
    long wait = bucket.reserve();
    if (wait <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(wait); // a rate limit's own wait: the time it stands for, as client-go's limiter waits
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
