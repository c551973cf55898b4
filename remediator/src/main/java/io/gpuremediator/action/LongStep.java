package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec;
import java.util.Optional;

/**
 * A step carried on in the background after the webhook is answered (a drain, a diagnostic Job, a replacement):
 * started once, then looked at until it passes or fails. It keeps nothing between looks but what the ledger's task
 * holds, so a restart or a new leader resumes it. The episode engine owns every write; a long step says what it
 * found, and the {@link StepStages stages} it moves an episode through are its own.
 *
 * @param <S> the spec record of its kind
 */
public interface LongStep<S extends ActionSpec> {
  /** The stages and decisions of this kind. */
  StepStages stages();

  /** Asks to start: go, wait (a budget, a slot), or never as things are (a human decides). */
  StepStart start(LongStepRun<S> run) throws ClusterException;

  /** One look at the step under way (its task is {@code run.task()}). */
  StepResult look(LongStepRun<S> run) throws ClusterException;

  /**
   * Asks outside what an {@link StepResult.Intent} recorded (its handle is now the task's), once; says what came of it
   * (never another intent).
   */
  default StepResult send(LongStepRun<S> run) throws ClusterException {
    throw new IllegalStateException("step kind " + run.spec().kind() + " records no intent");
  }

  /** Gives back what a start took (a drain slot) when the step ends, is released, or its start was never written. */
  default void cancel(String node, StepPorts ports) {}

  /**
   * Whether a look before the task's retry time is of use: the step then only checks whether what it waits for came
   * about (a drain's last pod left) and acts again at the retry time. Such looks come from the watches, so a step held
   * back by a retry time still ends on the event that ends it.
   */
  default boolean looksBeforeRetry() {
    return false;
  }

  /** What the Node object going away means to a step under way, once it has a handle. */
  enum WhenNodeGone {
    /** Nothing of its own: a Job lost with its node fails as a Job would. */
    NOTHING,
    /** The episode ends with the node ({@code node_deleted}): a reboot, a pre-flight. */
    ENDS_EPISODE,
    /** The step has done its work ({@code replaced}): a replacement. */
    PASSES
  }

  /**
   * What the Node object going away means to this step once it has a handle: anything but {@code NOTHING} has the
   * episode engine remember the node's last ledger to close the episode with.
   */
  default WhenNodeGone whenNodeGone() {
    return WhenNodeGone.NOTHING;
  }

  /**
   * The decision of a failure that escalates to {@code on_fail}, when the kind names its own (the pre-flight gate's
   * failure is {@code preflight_failed} whatever comes next); empty: {@code escalated}.
   */
  default Optional<Reason> escalationReason() {
    return Optional.empty();
  }

  /**
   * Whether a human's retry goes back through {@link #start} (a budget or a slot to take again); otherwise the step
   * runs again at once as a new attempt.
   */
  default boolean retriesThroughStart() {
    return true;
  }
}
