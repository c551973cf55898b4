package io.gpuremediator.action;

import io.gpuremediator.playbook.LongStepSpec;
import java.time.Duration;
import java.util.Optional;

/**
 * Has the node replaced by {@code provider}; the step ends when the Node object is gone, or fails at {@code timeout}.
 *
 * @param via what a cluster-api replacement does to the Machine ({@code delete} for every other provider)
 */
public record ReplaceSpec(String provider, ReplaceVia via, Duration timeout, boolean dryRun) implements LongStepSpec {
  @Override
  public Optional<Needs> needs() {
    return Optional.of(new Needs(Port.CLOUD, provider));
  }
}
