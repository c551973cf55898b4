package io.gpuremediator.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that runs in real time from one minute after {@link Alerts#STARTS} (like {@link Alerts#liveClock()}),
 * and that a test can move forward at once: a drain's 30-minute timeout without waiting 30 minutes.
 */
public final class JumpClock extends UtcTestClock {
  private final AtomicReference<Duration> offset =
      new AtomicReference<>(Duration.between(Instant.now(), Alerts.STARTS.plusSeconds(60)));

  /** Moves the clock forward. */
  public void jump(Duration d) {
    offset.updateAndGet(o -> o.plus(d));
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(offset.get());
  }
}
