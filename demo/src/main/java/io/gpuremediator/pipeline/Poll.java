package io.gpuremediator.pipeline;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/** Polls a probe until it answers or a deadline passes; nothing here waits for a fixed time. */
public final class Poll {
  private Poll() {}

  /** What a probe that never answered last said or threw, for the failure message. */
  public static final class Timeout extends Exception {
    Timeout(String what, Duration after, Exception last) {
      super(what + ": not within " + after.toSeconds() + " s" + (last == null ? "" : " (last: " + last + ")"), last);
    }
  }

  /** Calls {@code probe} every {@code every} until it returns a value; a probe that throws counts as "not yet". */
  public static <T> T until(String what, Duration timeout, Duration every, Callable<Optional<T>> probe)
      throws Timeout, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (true) {
      try {
        Optional<T> value = probe.call();
        if (value.isPresent()) {
          return value.get();
        }
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        last = e;
      }
      if (System.nanoTime() > deadline) {
        throw new Timeout(what, timeout, last);
      }
      Thread.sleep(every.toMillis());
    }
  }
}
