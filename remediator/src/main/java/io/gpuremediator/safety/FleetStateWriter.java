package io.gpuremediator.safety;

import io.gpuremediator.safety.FleetStore.FleetStoreException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores the fleet state and announces its changes, apart from the gate's lock: writes are serialised on a monitor of
 * their own, one is in flight at a time, and the changes that come while one is under way or within {@code spacing} of
 * its start are stored together by the next, which stores the newest state then. Each write encodes every recent start:
 * spaced, a thousand-node event costs a write per {@code spacing} of its length, not one per start (quadratic). A crash
 * before a write loses only the starts of the last moments: every episode is on its node's ledger.
 */
final class FleetStateWriter {
  private static final Logger LOGGER = LoggerFactory.getLogger(FleetStateWriter.class);

  private final FleetStore store;
  private final Executor background;
  private final Object saving = new Object();
  /** Set while the newest state waits to be stored; the background write that clears it stores what is newest then. */
  private final AtomicBoolean unsaved = new AtomicBoolean();

  private final long spacingNanos;
  /** When the last background write started ({@link System#nanoTime}); read and written on the background only. */
  private long lastStart;

  /**
   * {@code background} runs the writes and announcements in order, off the caller's path; a background write starts no
   * sooner than {@code spacing} after the one before it.
   */
  FleetStateWriter(FleetStore store, Executor background, Duration spacing) {
    this.store = store;
    this.background = background;
    this.spacingNanos = spacing.toNanos();
    this.lastStart = System.nanoTime() - spacingNanos;
  }

  FleetState load() throws FleetStoreException {
    return store.load();
  }

  /** Stores, in the background, whatever {@code newest} is when the write runs. */
  void saveLater(Supplier<FleetState> newest) {
    if (unsaved.getAndSet(true)) {
      return; // a write is already due; it will store this change too
    }
    later(() -> {
      long wait = lastStart + spacingNanos - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait); // a wait, not a poll: the changes of this while are stored below, together
      }
      lastStart = System.nanoTime();
      unsaved.set(false);
      synchronized (saving) {
        try {
          store.save(newest.get());
        } catch (FleetStoreException e) {
          LOGGER.error("fleet safety state not stored ({}); kept in memory", e.getMessage());
        }
      }
    });
  }

  /**
   * Stores {@code next} now, then runs {@code stored} inside the same monitor: a background write waiting for it then
   * stores what {@code stored} published, never what it replaced.
   */
  void saveNow(Supplier<FleetState> next, Runnable stored) throws FleetStoreException {
    synchronized (saving) {
      store.save(next.get());
      stored.run();
    }
  }

  /** Announces a change now (an Event), on the caller's thread. */
  void announce(String reason, String message) {
    store.announce(reason, message);
  }

  /** Announces a change in the background. */
  void announceLater(String reason, String message) {
    later(() -> store.announce(reason, message));
  }

  /** Runs {@code work} in the background, or here when the background has stopped (the service closing). */
  private void later(Runnable work) {
    try {
      background.execute(work);
    } catch (RejectedExecutionException e) {
      work.run();
    }
  }
}
