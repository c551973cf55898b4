package io.gpuremediator.testing;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A test's clock: in UTC, whatever zone it is asked for; its instant is the subclass's. */
abstract class UtcTestClock extends Clock {
  @Override
  public final ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public final Clock withZone(ZoneId zone) {
    return this;
  }
}
