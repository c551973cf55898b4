package io.gpuremediator.value;

import io.gpuremediator.yaml.MapReader.Parsed;
import java.time.Duration;
import java.util.Objects;

/** At most {@code count} events per sliding {@code window}, written {@code 10/1h}. */
public record Rate(int count, Duration window) {
  /** Validates the parts. */
  public Rate {
    Objects.requireNonNull(window, "window");
    if (count < 0 || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("a rate needs a count >= 0 and a positive window");
    }
  }

  /** Parses {@code COUNT/DURATION}. */
  public static Parsed<Rate> parse(String text) {
    int slash = text.indexOf('/');
    if (slash <= 0 || !text.substring(0, slash).matches("\\d{1,6}")) {
      return Parsed.error("\"" + text + "\" is not a rate (like 10/1h)");
    }
    Parsed<Duration> window = Durations.parse(text.substring(slash + 1));
    if (window.error() != null) {
      return Parsed.error("\"" + text + "\" is not a rate (like 10/1h)");
    }
    return Parsed.ok(new Rate(Integer.parseInt(text.substring(0, slash)), window.value()));
  }

  @Override
  public String toString() {
    return count + "/" + Durations.format(window);
  }
}
