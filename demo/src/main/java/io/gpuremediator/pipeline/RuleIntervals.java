package io.gpuremediator.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shipped rule files as the demo's Prometheus loads them: each group's own {@code interval} is scaled as the
 * global evaluation interval is (1 s for {@code dcgm/prometheus.yml}'s 15 s: a group run every 2 minutes there runs
 * every 8 s here), never below the demo's interval. Groups then run as often relative to each other, and to the
 * global ones, as in production; nothing else in the files changes ({@code for:} durations and ranges stay real).
 */
final class RuleIntervals {
  private static final Pattern INTERVAL = Pattern.compile("^(\\s+)interval:(.*)$");
  private static final Pattern VALUE = Pattern.compile("\\s*(\\d+)([smh])\\s*");

  private RuleIntervals() {}

  /** Copies each file matching {@code glob} into {@code into}, scaled; returns the glob of the copies. */
  static String copy(Path glob, Path into, Duration production, Duration demo) throws IOException {
    Files.createDirectories(into);
    try (var files = Files.newDirectoryStream(glob.getParent(), glob.getFileName().toString())) {
      for (Path f : files) {
        Files.writeString(into.resolve(f.getFileName()), scaled(f, Files.readString(f), production, demo));
      }
    }
    return into.resolve(glob.getFileName()).toString();
  }

  /** The rule file {@code text} (read from {@code file}) with every group interval scaled; fails on one it cannot read. */
  static String scaled(Path file, String text, Duration production, Duration demo) {
    List<String> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher m = INTERVAL.matcher(lines[i]);
      if (!m.matches()) {
        out.add(lines[i]);
        continue;
      }
      Duration interval = duration(m.group(2));
      if (interval == null) {
        throw new IllegalArgumentException(file + ":" + (i + 1) + ": a group interval the demo cannot scale: '"
            + m.group(2).trim() + "' (a number of s, m or h)");
      }
      long scaled = Math.max(demo.toMillis(), interval.toMillis() * demo.toMillis() / production.toMillis());
      out.add(m.group(1) + "interval: " + scaled + "ms");
    }
    return String.join("\n", out);
  }

  /** A duration written as Prometheus' configs write the intervals here (a number of s, m or h), or null. */
  static Duration duration(String text) {
    Matcher v = VALUE.matcher(text);
    if (!v.matches()) {
      return null;
    }
    return Duration.ofSeconds(Long.parseLong(v.group(1)) * switch (v.group(2)) {
      case "s" -> 1;
      case "m" -> 60;
      default -> 3600;
    });
  }
}
