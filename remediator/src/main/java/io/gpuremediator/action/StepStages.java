package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Stage;
import java.util.Objects;
import java.util.Optional;

/**
 * The stages a long step moves its episode through, and the decisions that name them.
 *
 * @param running the stage while it runs
 * @param passed the stage once it passed; empty: the stage stays as it was
 * @param failed the stage when it fails (and does not escalate)
 * @param started the decision when its work began ({@link StepResult.Started}, or a {@link StepStart.Go} with a detail)
 * @param passedReason the decision when it passed
 * @param failedReason the decision when it failed, unless the failure names its own
 */
public record StepStages(Stage running, Optional<Stage> passed, Stage failed, Reason started, Reason passedReason,
    Reason failedReason) {
  /** Validates presence. */
  public StepStages {
    Objects.requireNonNull(running, "running");
    Objects.requireNonNull(passed, "passed");
    Objects.requireNonNull(failed, "failed");
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(passedReason, "passedReason");
    Objects.requireNonNull(failedReason, "failedReason");
  }
}
