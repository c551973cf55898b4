package io.gpuremediator.episode;

import java.time.Instant;
import java.util.Optional;

/** What one look at a long step found. */
sealed interface StepResult {
  /** Still under way; look again at {@code retryAt} (or the next tick). */
  record Running(String note, Optional<Instant> retryAt) implements StepResult {}

  /** Done: the next step may start. */
  record Succeeded(String note) implements StepResult {}

  /** Failed: the episode stops here (or escalates). */
  record Failed(String note) implements StepResult {}
}
