package io.gpuremediator.value;

import io.gpuremediator.yaml.MapReader.Parsed;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints durations in the Prometheus/Alertmanager syntax ({@code 1h30m}, {@code 10m}, {@code 45s}). */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d{1,9})(ms|s|m|h|d|w)");
  private static final Pattern WHOLE = Pattern.compile("(?:\\d{1,9}(?:ms|s|m|h|d|w))+");
  /** Longer than anything the service is configured or asked for: beyond it, arithmetic on times would overflow. */
  private static final Duration MAX = Duration.ofDays(36_525);

  private Durations() {}

  /** Parses a positive duration such as {@code 1h30m}. */
  public static Parsed<Duration> parse(String text) {
    if (!WHOLE.matcher(text).matches()) {
      return Parsed.error("\"" + text + "\" is not a duration (like 30s, 10m, 1h30m)");
    }
    Duration total = Duration.ZERO;
    Matcher m = PART.matcher(text);
    while (m.find()) {
      long n = Long.parseLong(m.group(1));
      total = total.plus(switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        case "d" -> Duration.ofDays(n);
        default -> Duration.ofDays(7 * n);
      });
      if (total.compareTo(MAX) > 0) {
        return Parsed.error("\"" + (text.length() > 64 ? text.substring(0, 61) + "..." : text) + "\" is longer than"
            + " any duration we take (100 years)");
      }
    }
    if (total.isZero()) {
      return Parsed.error("duration must be greater than zero");
    }
    return Parsed.ok(total);
  }

  /** Prints a duration in the same syntax, largest units first ({@code 1h30m}). */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    long ms = d.toMillis();
    long[] sizes = {3_600_000L, 60_000L, 1000L, 1L};
    String[] units = {"h", "m", "s", "ms"};
    for (int i = 0; i < sizes.length; i++) {
      if (ms >= sizes[i]) {
        b.append(ms / sizes[i]).append(units[i]);
        ms %= sizes[i];
      }
    }
    return b.toString();
  }
}
