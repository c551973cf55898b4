package io.gpuremediator.episode;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Held;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one give-back loop: what ended episodes held off a node and no episode holds any more
 * ({@link io.gpuremediator.state.NodeLedger#unheld}) is given back by its kind's row, then forgotten in one write; one
 * whose service does not answer is tried again on a later look, with backoff. A kind no row knows (a newer release's)
 * is left as it is.
 */
final class GiveBacks {
  private static final Logger LOGGER = LoggerFactory.getLogger(GiveBacks.class);

  private final HoldingKinds kinds;
  private final EpisodeWriter writer;
  private final RetryBackoff backoffs = new RetryBackoff();

  GiveBacks(HoldingKinds kinds, EpisodeWriter writer) {
    this.kinds = kinds;
    this.writer = writer;
  }

  /** Whether the node has something to give back now. */
  boolean due(NodeInfo n, Instant now) {
    return n.ledger().unheld().stream().anyMatch(h -> kinds.row(h.kind()).isPresent() && !backoffs.waiting(h.key(), now));
  }

  /** Gives back what the node's ledger holds for no episode, and forgets what was given back or seen gone. */
  void giveBack(NodeInfo n) throws ClusterException {
    List<String> done = new ArrayList<>();
    Instant now = writer.now();
    for (Held h : n.ledger().unheld()) {
      Optional<HoldingKind> row = kinds.row(h.kind());
      if (row.isEmpty() || backoffs.waiting(h.key(), now)) {
        continue;
      }
      try {
        LOGGER.info("{} on node {}: {}", h.key(), n.name(), row.get().giveBack(n.name(), h));
        done.add(h.key());
        backoffs.succeeded(h.key());
      } catch (HoldingKind.TryLater ex) {
        RetryBackoff.State b = backoffs.failed(h.key(), now);
        LOGGER.warn("{} on node {} not given back yet: {} (attempt {})", h.key(), n.name(), ex.getMessage(), b.failures());
      }
    }
    if (!done.isEmpty()) {
      writer.dropUnheld(n.name(), done);
    }
  }

  /** Gives these back once each, for a node that is gone (replaced): what fails is left to end on its own. */
  void giveBackNow(String node, Collection<Held> held) {
    for (Held h : held) {
      Optional<HoldingKind> row = kinds.row(h.kind());
      try {
        if (row.isPresent()) {
          LOGGER.info("{} of gone node {}: {}", h.key(), node, row.get().giveBack(node, h));
        }
      } catch (HoldingKind.TryLater ex) {
        LOGGER.warn("{} of gone node {} not given back ({}); it ends on its own", h.key(), node, ex.getMessage());
      }
    }
  }
}
