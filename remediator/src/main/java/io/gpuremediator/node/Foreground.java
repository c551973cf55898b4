package io.gpuremediator.node;

import java.util.function.Supplier;

/**
 * Marks the Kubernetes calls a thread makes while Alertmanager waits for the answer (a webhook's node writes), so the
 * API budget serves them before the background's (the loop's looks, the Events): in a 1,000-node event the quarantines
 * go first and the drains follow, instead of each taking half the budget while the webhook outlives its deadline.
 */
public final class Foreground {
  private static final ThreadLocal<Boolean> CURRENT = ThreadLocal.withInitial(() -> false);

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

  /** Whether this thread's calls are foreground now. */
  public static boolean isCurrent() {
    return CURRENT.get();
  }
}
