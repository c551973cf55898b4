package io.gpuremediator.action;

import io.gpuremediator.node.ClusterException;
import java.util.Optional;

/**
 * How one provider replaces a node ({@code replace: {provider}}): what it checks before the fleet's budget is asked
 * (nothing outside is called when the node cannot be replaced this way), and the one request that has the node
 * replaced, made only after a fresh look finds it not made yet. The step ends when the Node object is gone.
 */
interface Replacement {
  /** What a dry run or {@code explain} says will happen. */
  String what(ReplaceRequest spec, String node);

  /** Why the node cannot be replaced this way, if it cannot (a {@code provider_unsupported} or not configured). */
  Optional<StepStart.Impossible> check(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException;

  /** What the provider says while the step waits for the Node object to go (a look at what was asked of), if anything. */
  default Optional<String> whileWaiting(LongStepRun<?> run) throws ClusterException {
    return Optional.empty();
  }

  /** Looks fresh and asks for the replacement unless it was asked already; the task's handle is empty until then. */
  StepResult ask(LongStepRun<?> run, ReplaceRequest spec) throws ClusterException;
}
