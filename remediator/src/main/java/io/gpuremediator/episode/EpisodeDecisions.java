package io.gpuremediator.episode;

import io.gpuremediator.bounded.BoundedMap;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import java.time.Clock;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Records what happens to episodes in the background as decisions, like the webhook's: each to the listener (the
 * decision log, the metrics, the log line), a stage change also as an Event on the node. A wait or a warning seen on
 * every look (a drain slot, a PodDisruptionBudget) is recorded once per episode.
 */
final class EpisodeDecisions {
  private static final int REMEMBERED = 10_000;

  private final DecisionListener listener;
  private final NodeEvents events;
  private final Clock clock;
  private final Map<String, Boolean> noticed = Collections.synchronizedMap(BoundedMap.firstInFirstOut(REMEMBERED));

  EpisodeDecisions(DecisionListener listener, NodeEvents events, Clock clock) {
    this.listener = listener;
    this.events = events;
    this.clock = clock;
  }

  /** Records a decision about the episode; a stage change ({@code stage} present) also becomes an Event on the node. */
  Decision decide(String node, Episode e, Reason reason, String detail, List<ActionRecord> records, Optional<Stage> stage) {
    Decision d = new Decision(clock.instant(), e.fingerprint(), e.startsAt(), e.alertname(),
        e.progress().resolved() ? "resolved" : "firing", node, e.playbook(), reason, detail, records);
    listener.decided(d);
    stage.ifPresent(s -> events.record(NodeEvents.of(node, reason, s.code() + ": " + detail, clock.instant())));
    return d;
  }

  /** A refusal or a wait, decided once per episode and reason (a look every few seconds must not repeat it). */
  void noticeOnce(String node, Episode e, Reason reason, String detail) {
    if (noticed.put(e.fingerprint() + "@" + e.startsAt() + "/" + reason.code(), Boolean.TRUE) == null) {
      decide(node, e, reason, detail, List.of(), Optional.empty());
    }
  }

  /** A decision about what a step's start found, once per episode and reason, with its Event on the node. */
  void announceOnce(String node, Episode e, Reason reason, String detail) {
    if (noticed.put(e.fingerprint() + "@" + e.startsAt() + "/" + reason.code(), Boolean.TRUE) == null) {
      decide(node, e, reason, detail, List.of(), Optional.empty());
      events.record(NodeEvents.of(node, reason, detail, clock.instant()));
    }
  }

  /** A warning Event about a step under way, once per episode, step start and message. */
  void warnOnce(String node, Episode e, String reason, String message) {
    String key = e.fingerprint() + "@" + e.startsAt() + "/" + e.progress().task().map(t -> t.started().toString()).orElse("")
        + "/" + message;
    if (noticed.put(key, Boolean.TRUE) == null) {
      events.record(NodeEvents.warning(node, reason, message, clock.instant()));
    }
  }

  /** The Event writer. */
  NodeEvents events() {
    return events;
  }

  /** The listener told of the background's figures (stages, step durations). */
  DecisionListener listener() {
    return listener;
  }
}
