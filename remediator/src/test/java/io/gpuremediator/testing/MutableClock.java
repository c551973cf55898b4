package io.gpuremediator.testing;

import java.time.Duration;
import java.time.Instant;

/** A clock tests move by hand. */
public final class MutableClock extends UtcTestClock {
  private volatile Instant now;

  /** Starts at {@code start}. */
  public MutableClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock forward. */
  public void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public Instant instant() {
    return now;
  }
}
