package io.gpuremediator.episode;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.state.Stage;
import java.util.Map;

/** Told what the loop does: its decisions, the episodes per stage, and how long each long step took. */
public interface LoopListener {
  /** A stage change or a refusal, as a decision. */
  void decided(Decision decision);

  /** Active episodes per stage, after each look over the fleet. */
  default void stages(Map<Stage, Integer> counts) {}

  /** A long step ended ({@code succeeded} or {@code failed}) after {@code seconds}. */
  default void stepFinished(String kind, String outcome, double seconds) {}
}
