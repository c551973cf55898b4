package io.gpuremediator.threads;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread factories of daemon threads with the service's names. */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** Daemon threads that all carry {@code name} (a single-thread executor's, or a pool a dump shows as one). */
  public static ThreadFactory named(String name) {
    return r -> daemon(r, name);
  }

  /** Daemon threads named {@code prefix-1}, {@code prefix-2}, ... in the order they are made. */
  public static ThreadFactory numbered(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> daemon(r, prefix + "-" + n.incrementAndGet());
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
