package io.gpuremediator.episode;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one writer of core/v1 Events on nodes: those a decision's {@code event} actions asked for (after the node write),
 * a stage change's, a refusal's and a drain's warnings. A failed Event never undoes a node change: it is logged, and an
 * {@code event} action is marked {@code failed} with the failure reported in its decision.
 */
final class NodeEvents {
  private static final Logger LOGGER = LoggerFactory.getLogger(NodeEvents.class);
  /** The API server's limit on an Event's message is larger; ours keeps Events readable. */
  private static final int MESSAGE_CHARS = 1024;

  private final Cluster cluster;

  NodeEvents(Cluster cluster) {
    this.cluster = cluster;
  }

  /** Records one Event; says whether it was recorded (a failure is logged). */
  boolean record(NodeEvent event) {
    try {
      cluster.recordEvent(event);
      return true;
    } catch (ClusterException | RuntimeException e) {
      LOGGER.warn("event {} on node {} not recorded: {}", event.reason(), event.node(), e.getMessage());
      return false;
    }
  }

  /** Records each Event, in order. */
  void recordAll(List<NodeEvent> events) {
    events.forEach(this::record);
  }

  /** The Event of a stage change: {@code Warning} when it failed, its reason in CamelCase. */
  static NodeEvent of(String node, Reason reason, String message, Instant time) {
    String type = reason.outcome() == Outcome.FAILED ? "Warning" : "Normal";
    return new NodeEvent(node, type, camelCase(reason), capped(message), time);
  }

  /** A warning under a reason of its own (a refusal, a PodDisruptionBudget blocking a drain). */
  static NodeEvent warning(String node, String reason, String message, Instant time) {
    return new NodeEvent(node, "Warning", reason, capped(message), time);
  }

  /**
   * Writes each Event a decision's actions asked for, marks the matching {@code event} action of {@code records} with
   * its outcome, tells {@code timed} how long each took, and returns a sentence about the failures (empty when none).
   */
  String writeActions(List<NodeEvent> events, List<ActionRecord> records, DecisionListener timed) {
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
      timed.actionTimed("event", outcome.code(), (System.nanoTime() - started) / 1e9);
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

  private static String camelCase(Reason reason) {
    StringBuilder b = new StringBuilder();
    for (String part : reason.code().split("_")) {
      b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return b.toString();
  }

  private static String capped(String message) {
    return message.length() > MESSAGE_CHARS ? message.substring(0, MESSAGE_CHARS - 3) + "..." : message;
  }
}
