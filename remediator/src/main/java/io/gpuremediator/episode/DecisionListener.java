package io.gpuremediator.episode;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Told about every decision once it is final (to log it, count it and keep it for the API), and of the episode
 * engine's figures (actions timed, episodes per stage, long steps finished).
 */
public interface DecisionListener {
  /** Called once per decided alert. */
  void decided(Decision decision);

  /** Called once per webhook with its decisions, in order; by default each is {@linkplain #decided decided}. */
  default void decidedAll(List<Decision> decisions) {
    decisions.forEach(this::decided);
  }

  /** Called with how long one action took to take effect, in seconds. */
  default void actionTimed(String action, String outcome, double seconds) {}

  /** Called after each look over the fleet: active episodes per stage, and the GPUs their fence_gpu steps fenced. */
  default void stages(Map<Stage, Integer> counts, int gpusFenced) {}

  /**
   * Called with when the oldest long step under way of each kind started, after each look over the fleet (a kind with
   * none under way is absent): a step far older than any timeout means the loop is not carrying it on.
   */
  default void oldestSteps(Map<String, Instant> startedByKind) {}

  /** Called when a long step ended ({@code succeeded} or {@code failed}) after {@code seconds}. */
  default void stepFinished(String kind, String outcome, double seconds) {}

  /**
   * Called when an episode ended ({@code released}, {@code replaced}) or stopped for a human ({@code needs_human}),
   * {@code seconds} after its fault (its alert's startsAt); {@code closedBy}: {@code automatic} or {@code human}.
   */
  default void episodeEnded(String playbook, String outcome, String closedBy, double seconds) {}

  /** Called when a repair step (a GPU reset, a reboot) passed, {@code seconds} after it started. */
  default void repaired(String playbook, String step, double seconds) {}

  /** Called when a node's new episode started {@code seconds} after its previous one. */
  default void incidentInterval(double seconds) {}
}
