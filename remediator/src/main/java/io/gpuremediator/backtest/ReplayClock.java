package io.gpuremediator.backtest;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The replay's time: set to each webhook's instant before it is decided, so every window counts as it would have. */
final class ReplayClock extends Clock {
  private Instant now;

  ReplayClock(Instant start) {
    this.now = start;
  }

  void set(Instant instant) {
    now = instant;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the replay runs in UTC");
  }

  @Override
  public Instant instant() {
    return now;
  }
}
