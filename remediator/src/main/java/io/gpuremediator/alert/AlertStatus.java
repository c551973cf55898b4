package io.gpuremediator.alert;

import java.util.Locale;
import java.util.Optional;

/** Whether an alert is firing or resolved. */
public enum AlertStatus {
  /** The alert is active. */
  FIRING,
  /** The alert has ended. */
  RESOLVED;

  private final String code = name().toLowerCase(Locale.ROOT);

  /** The webhook spelling. */
  public String code() {
    return code;
  }

  /** The status with this webhook spelling. */
  public static Optional<AlertStatus> fromCode(String code) {
    return switch (code) {
      case "firing" -> Optional.of(FIRING);
      case "resolved" -> Optional.of(RESOLVED);
      default -> Optional.empty();
    };
  }
}
