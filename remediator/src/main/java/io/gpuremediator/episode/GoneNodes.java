package io.gpuremediator.episode;

import io.gpuremediator.action.LongStep;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.Progress.Task;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Nodes whose long step ends with the Node object itself (a replacement under way), each with what its ledger last
 * said: once the Node is gone the ledger is too, and the episode is closed from this.
 */
final class GoneNodes {
  /** A node whose step ends with it, as last seen: its episode, its last ledger, and what its going means. */
  record Last(Episode episode, NodeLedger ledger, LongStep.WhenNodeGone means) {
    /** The handle of what its step started outside (the instance marked). */
    String handle() {
      return episode.progress().task().map(Task::handle).orElse("");
    }
  }

  private final Map<String, Last> tracked = new ConcurrentHashMap<>();

  /** Remembers the node as its episode is now. */
  void track(String node, Episode e, NodeLedger ledger, LongStep.WhenNodeGone means) {
    tracked.put(node, new Last(e, ledger, means));
  }

  /** What the node last showed, if it is tracked. */
  Last last(String node) {
    return tracked.get(node);
  }

  /** The tracked nodes. */
  Set<String> nodes() {
    return tracked.keySet();
  }

  /** Forgets the node (its Node object is gone, or its step ended another way). */
  void forget(String node) {
    tracked.remove(node);
  }
}
