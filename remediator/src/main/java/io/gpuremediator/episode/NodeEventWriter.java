package io.gpuremediator.episode;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the Events a decision's actions asked for, after the node write. A failed Event does not undo
 * the node change: its action is marked {@code failed} and the failure is reported in the decision.
 */
final class NodeEventWriter {
  private static final Logger LOGGER = LoggerFactory.getLogger(NodeEventWriter.class);

  private final Cluster cluster;
  private final DecisionListener listener;

  NodeEventWriter(Cluster cluster, DecisionListener listener) {
    this.cluster = cluster;
    this.listener = listener;
  }

  /**
   * Writes each Event, marks the matching {@code event} action of {@code records} with its outcome, and
   * returns a sentence about the failures (empty when none).
   */
  String write(List<NodeEvent> events, List<ActionRecord> records) {
    List<String> failures = new ArrayList<>();
    int next = 0;
    for (NodeEvent event : events) {
      long started = System.nanoTime();
      StepOutcome outcome = StepOutcome.APPLIED;
      try {
        cluster.recordEvent(event);
      } catch (ClusterException e) {
        outcome = StepOutcome.FAILED;
        failures.add(e.getMessage());
        LOGGER.warn("event {} on node {} not recorded: {}", event.reason(), event.node(), e.getMessage());
      }
      listener.actionTimed("event", outcome.code(), (System.nanoTime() - started) / 1e9);
      next = mark(records, next, outcome);
    }
    return failures.isEmpty() ? "" : "event not recorded: " + String.join("; ", failures);
  }

  private static int mark(List<ActionRecord> records, int from, StepOutcome outcome) {
    for (int i = from; i < records.size(); i++) {
      ActionRecord r = records.get(i);
      if (r.type().equals("event") && r.outcome() == StepOutcome.APPLIED) {
        records.set(i, new ActionRecord(r.type(), outcome, r.change()));
        return i + 1;
      }
    }
    return records.size();
  }
}
