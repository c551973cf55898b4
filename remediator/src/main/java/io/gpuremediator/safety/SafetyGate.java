package io.gpuremediator.safety;

import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The fleet limits, as the engine sees them. The engine tells the gate which nodes a webhook's firing
 * remediation alerts are about before deciding any of them ({@link #observe}), asks it before every
 * new episode ({@link #check}, dry-runs included, so they name the limit that would have blocked them),
 * and admits each one by {@linkplain #reserve reserving} its place in the budgets until it is
 * {@linkplain #settle settled}: two webhooks cannot both take the last unit of a budget, and no lock of the
 * gate is held while the node is written.
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
    public Optional<Refusal> reserve(Candidate candidate) {
      return Optional.empty();
    }

    @Override
    public void settle(Candidate candidate, boolean started) {}
  };

  /**
   * Records the nodes of one webhook's firing remediation alerts, each with when its alert started
   * firing, before any of them is decided; opens the breaker on a storm.
   */
  void observe(Map<String, Instant> startedAt);

  /** Why this new episode must not start, or empty when it may. */
  Optional<Refusal> check(Candidate candidate);

  /**
   * Why no new episode may start at all now (the state not loaded, a pause, the breaker open), read without the
   * gate's lock, so a storm's 200 refusals cost no render and no lock each; empty when {@link #check} decides.
   */
  default Optional<Refusal> stopped() {
    return Optional.empty();
  }

  /**
   * Admits a new episode: refuses it as {@link #check} would, or, when it takes a node out of service, holds
   * its place until {@link #settle}: the reservation counts as an unavailable node and as a quarantine start
   * for every admission after it. Every reservation must be settled.
   */
  Optional<Refusal> reserve(Candidate candidate);

  /** Ends what {@link #reserve} admitted: records the start when the node was quarantined, else gives the place back. */
  void settle(Candidate candidate, boolean started);

  /**
   * A new episode asking to start.
   *
   * @param becomesUnavailable whether it would take a schedulable, Ready node out of service
   * @param playbookRate the playbook's own rate limit, if it has one
   * @param cooldown the playbook's own cooldown; the fleet default when empty
   */
  record Candidate(NodeInfo node, String playbook, boolean becomesUnavailable,
      Optional<Rate> playbookRate, Optional<Duration> cooldown) {}
}
