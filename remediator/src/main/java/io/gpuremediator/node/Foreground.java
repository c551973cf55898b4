package io.gpuremediator.node;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Marks the Kubernetes calls a thread makes while Alertmanager waits for the answer (a webhook's node writes), so the
 * API budget serves them before the background's (the loop's looks, the Events): in a 1,000-node event the quarantines
 * go first and the drains follow, instead of each taking half the budget while the webhook outlives its deadline. It
 * also counts the webhooks being decided in this process, so that a background call can hold back, for a bounded time,
 * while one is: on a small machine the loop's reads, kicked by the quarantine the webhook has just written, otherwise
 * share the cores and the API server with the rest of that webhook's answer.
 */
public final class Foreground {
  private static final ThreadLocal<Boolean> CURRENT = ThreadLocal.withInitial(() -> false);
  private static final Object DECIDING = new Object();
  /** Webhooks being decided now (guarded by {@link #DECIDING}). */
  private static int deciding;

  private Foreground() {}

  /** Runs {@code work} with its calls marked foreground. */
  public static <T> T run(Supplier<T> work) {
    boolean outer = CURRENT.get();
    CURRENT.set(true);
    try {
      return work.get();
    } finally {
      CURRENT.set(outer);
    }
  }

  /** Runs a webhook's whole decision, its calls marked foreground, counted as being decided until it returns. */
  public static <T> T decide(Supplier<T> work) {
    synchronized (DECIDING) {
      deciding++;
    }
    try {
      return run(work);
    } finally {
      synchronized (DECIDING) {
        if (--deciding == 0) {
          DECIDING.notifyAll();
        }
      }
    }
  }

  /**
   * Waits until no webhook is being decided, or {@code maxNanos} have passed, whichever comes first: a background call
   * gives way to webhooks, and a stream of them delays it by at most that much, never starves it. Returns at once on a
   * foreground thread (a webhook never waits for itself) and when interrupted (the interrupt kept).
   */
  public static void awaitNoneDeciding(long maxNanos) {
    if (CURRENT.get()) {
      return;
    }
    long deadline = System.nanoTime() + maxNanos;
    synchronized (DECIDING) {
      while (deciding > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(DECIDING, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Whether this thread's calls are foreground now. */
  public static boolean isCurrent() {
    return CURRENT.get();
  }
}
