package io.gpuremediator.episode;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.threads.DaemonThreads;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one writer of core/v1 Events on nodes: those a decision's {@code event} actions asked for (queued after the node
 * write: the action is {@code pending} in its decision), a stage change's, a refusal's and a drain's warnings. A failed
 * Event never undoes a node change: it is logged and counted ({@code remediator_action_duration_seconds{action="event",
 * outcome="failed"}}).
 */
final class NodeEvents {
  private static final Logger LOGGER = LoggerFactory.getLogger(NodeEvents.class);
  /** The API server's limit on an Event's message is larger; ours keeps Events readable. */
  private static final int MESSAGE_CHARS = 1024;

  /** At most this many Events wait to be written; past it an Event is dropped (and logged), never a node write held. */
  private static final int QUEUED = 50_000;
  /** The decisions' Events, written one at a time in order; the thread ends when idle (so nothing to close). */
  private final ThreadPoolExecutor background = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS,
      new LinkedBlockingQueue<>(QUEUED), DaemonThreads.named("remediator-decision-events"));

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
   * Queues each Event a decision's actions asked for, to be written after the node write in the background, in order,
   * one at a time (each takes its turn in the API throttle behind the node writes queued before it: a 1,000-node event's
   * Events are paced, and its quarantines do not wait for them, as client-go's event recorder never makes a controller
   * wait). Marks the matching {@code event} actions of {@code records} pending; tells {@code timed} how long each write
   * took once written, and logs a failure.
   */
  void queueActions(List<NodeEvent> events, List<ActionRecord> records, DecisionListener timed) {
    int next = 0;
    for (NodeEvent event : events) {
      next = mark(records, next, StepOutcome.PENDING);
      try {
        background.execute(() -> {
          long started = System.nanoTime();
          boolean written = record(event);
          timed.actionTimed("event", (written ? StepOutcome.APPLIED : StepOutcome.FAILED).code(),
              (System.nanoTime() - started) / 1e9);
        });
      } catch (RejectedExecutionException e) {
        LOGGER.warn("event {} on node {} not recorded: {} Events already wait to be written", event.reason(), event.node(),
            QUEUED);
        timed.actionTimed("event", StepOutcome.FAILED.code(), 0);
      }
    }
  }

  private static int mark(List<ActionRecord> records, int from, StepOutcome outcome) {
    for (int i = from; i < records.size(); i++) {
      ActionRecord r = records.get(i);
      if (r.type().equals(StepRecords.EVENT) && r.outcome() == StepOutcome.APPLIED) {
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
