package io.gpuremediator.safety;

import io.gpuremediator.decision.Refusal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A limit a long step takes a place in while it runs, beside the admission's rows ({@link FleetLimit}): nodes
 * draining at once, pre-flight Jobs at once, instance replacements, GPUs fenced. A step takes its place when it
 * starts and gives it back when it ends; what each limit has used is a row of {@code GET /api/v1/safety}, the page and
 * {@code remediator_limit_used}.
 */
public interface StepLimit {
  /**
   * Takes a place for the node's step ({@code unit}: what of the node it is for, a GPU; empty for the whole node), or
   * says why there is none. A node that holds its place already takes none again.
   */
  Optional<Refusal> take(String node, String unit, Instant now);

  /** The node's step ended, failed, or was never written: its place is free again. */
  void release(String node);

  /** What the limit has used of what it allows now; none for a limit that is not configured. */
  List<LimitUsage> usage(Instant now);
}
