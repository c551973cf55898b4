package io.gpuremediator.node;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Marks the Kubernetes calls a thread makes while Alertmanager waits for the answer (a webhook's node writes), so the
 * API throttle serves them before the background's (the loop's looks, the Events): in a 1,000-node event the quarantines
 * go first and the drains follow, instead of each taking half the requests while the webhook outlives its deadline. It
 * also counts the webhooks being decided in this process, so that a background call can hold back, for a bounded time,
 * while one is: on a small machine the loop's reads, kicked by the quarantine the webhook has just written, otherwise
 * share the cores and the API server with the rest of that webhook's answer.
 */
public final class Foreground {
  private static final ThreadLocal<Boolean> CURRENT = ThreadLocal.withInitial(() -> false);
  private static final Object DECIDING = new Object();
  /** Webhooks being decided now (guarded by {@link #DECIDING}). */
  private static int deciding;
  /** Webhook threads waiting for something the background holds (a node it is looking at; guarded the same way). */
  private static int awaitingBackground;

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
   * Waits until no webhook is being decided, or {@code maxNanos} have passed, or a webhook waits for the background,
   * whichever comes first: a background call gives way to webhooks, and a stream of them delays it by at most that
   * much, never starves it. Returns at once on a foreground thread (a webhook never waits for itself) and when
   * interrupted (the interrupt kept).
   */
  public static void awaitNoneDeciding(long maxNanos) {
    if (CURRENT.get()) {
      return;
    }
    long deadline = System.nanoTime() + maxNanos;
    synchronized (DECIDING) {
      while (deciding > 0 && awaitingBackground == 0) {
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

  /**
   * Says that this thread, deciding a webhook, waits for something the background holds (a node the loop is looking
   * at), until the returned handle is closed: meanwhile no background call gives way, or the webhook would wait on a
   * background that waits on it.
   */
  public static Awaiting awaitingBackground() {
    if (!CURRENT.get()) {
      return () -> { }; // not a webhook's thread: nothing gives way to it
    }
    synchronized (DECIDING) {
      awaitingBackground++;
      DECIDING.notifyAll();
    }
    return () -> {
      synchronized (DECIDING) {
        awaitingBackground--;
      }
    };
  }

  /** A webhook's wait for the background, under way until closed. */
  @FunctionalInterface
  public interface Awaiting extends AutoCloseable {
    @Override
    void close();
  }

  /** Whether this thread's calls are foreground now. */
  public static boolean isCurrent() {
    return CURRENT.get();
  }
}
