package io.gpuremediator.action;

import io.gpuremediator.action.PreflightAction.PreflightSpec;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.value.CountOrPercent;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The pre-flight gate ({@code preflight} in the service config, decoded straight into this record): new nodes registering with {@code taint} run a Job
 * of {@code image} and {@code command} before they take work, at most {@code maxConcurrent} at once; a failure keeps
 * the taint and escalates to {@code onFail}.
 *
 * @param taint the taint key new GPU nodes register with; under {@link NodeKeys#DOMAIN}, the one taint the gate removes
 */
public record PreflightSettings(String taint, String image, List<String> command, Duration timeout,
    Optional<String> onFail, CountOrPercent maxConcurrent) {
  /** Validates presence, and that the taint is ours to remove. */
  public PreflightSettings {
    Objects.requireNonNull(taint, "taint");
    Objects.requireNonNull(image, "image");
    command = List.copyOf(command);
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onFail, "onFail");
    Objects.requireNonNull(maxConcurrent, "maxConcurrent");
    if (!NodeKeys.isWritableByPlaybook(taint)) {
      throw new IllegalArgumentException("the pre-flight taint " + taint + " is not under " + NodeKeys.DOMAIN);
    }
  }

  /** The gate's step. */
  public PreflightSpec job() {
    return new PreflightSpec(image, command, timeout, onFail, false);
  }
}
