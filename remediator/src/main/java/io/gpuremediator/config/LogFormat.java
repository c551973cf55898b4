package io.gpuremediator.config;

import java.util.Locale;
import java.util.Optional;

/** {@code log_format}: how {@code serve} writes its log lines on stderr. */
public enum LogFormat {
  /** One line an event: time, level, logger, message (decisions as logfmt). The default. */
  TEXT,
  /** One JSON object a line, for a log pipeline: decisions carry node, playbook, episode, outcome and reason as fields. */
  JSON;

  /** The format a config value names, if any. */
  public static Optional<LogFormat> parse(String value) {
    for (LogFormat f : values()) {
      if (f.name().toLowerCase(Locale.ROOT).equals(value)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }
}
