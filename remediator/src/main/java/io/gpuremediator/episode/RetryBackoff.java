package io.gpuremediator.episode;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Calls outside that failed, by key: each asked again after a backoff doubling from 1 s to 5 min. */
final class RetryBackoff {
  /** The longest wait, and the wait of a call that cannot succeed as things are. */
  static final Duration MAX = Duration.ofMinutes(5);
  private static final Duration FIRST = Duration.ofSeconds(1);

  private final Map<String, State> states = new ConcurrentHashMap<>();

  /** The failures so far of one call, and when it may be asked again. */
  record State(int failures, Instant nextAt) {}

  /** Counts one more failure of {@code key}. */
  State failed(String key, Instant now) {
    return states.merge(key, new State(1, now.plus(FIRST)),
        (old, fresh) -> new State(old.failures() + 1, now.plus(wait(old.failures() + 1))));
  }

  /** Waits the longest before {@code key} is asked again, keeping its count. */
  void holdOff(String key, int failures, Instant now) {
    states.put(key, new State(failures, now.plus(MAX)));
  }

  /** The call succeeded: no backoff. */
  void succeeded(String key) {
    states.remove(key);
  }

  /** Whether {@code key} waits now. */
  boolean waiting(String key, Instant now) {
    State b = states.get(key);
    return b != null && now.isBefore(b.nextAt());
  }

  private static Duration wait(int failures) {
    Duration d = FIRST.multipliedBy(1L << Math.min(failures - 1, 20));
    return d.compareTo(MAX) > 0 ? MAX : d;
  }
}
