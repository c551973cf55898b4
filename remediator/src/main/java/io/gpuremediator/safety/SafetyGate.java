package io.gpuremediator.safety;

import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The fleet limits, as the engine sees them. The engine tells the gate which nodes a webhook's firing
 * remediation alerts are about before deciding any of them ({@link #observe}), asks it before every
 * new episode ({@link #check}, dry-runs included, so they name the limit that would have blocked them),
 * and runs each admission, write and start record {@linkplain #exclusively exclusively} so that two
 * webhooks cannot both take the last unit of a budget.
 */
public interface SafetyGate {
  /** A gate that refuses nothing: for offline use before the safety layer is configured. */
  SafetyGate OPEN = new SafetyGate() {
    @Override
    public void observe(Map<String, Instant> startedAt) {}

    @Override
    public Optional<Refusal> check(Candidate candidate) {
      return Optional.empty();
    }

    @Override
    public void started(String node, String playbook) {}

    @Override
    public <T> T exclusively(Supplier<T> work) {
      return work.get();
    }
  };

  /**
   * Records the nodes of one webhook's firing remediation alerts, each with when its alert started
   * firing, before any of them is decided; opens the breaker on a storm.
   */
  void observe(Map<String, Instant> startedAt);

  /** Why this new episode must not start, or empty when it may. */
  Optional<Refusal> check(Candidate candidate);

  /** Records that a node became quarantined (after the write succeeded). */
  void started(String node, String playbook);

  /** Runs {@code work} while no other admission runs. */
  <T> T exclusively(Supplier<T> work);

  /**
   * A new episode asking to start.
   *
   * @param becomesUnavailable whether it would take a schedulable, Ready node out of service
   * @param playbookRate the playbook's own rate limit, if it has one
   * @param cooldown the playbook's own cooldown; the fleet default when empty
   */
  record Candidate(NodeInfo node, String playbook, boolean becomesUnavailable,
      Optional<io.gpuremediator.value.Rate> playbookRate, Optional<Duration> cooldown) {}
}
