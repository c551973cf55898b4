package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;

/** An action with its templates rendered and checked, ready to apply to a draft. Pure and repeatable. */
@FunctionalInterface
public interface PreparedAction {
  /** Applies the action to the draft and says what it changed. */
  ActionRecord apply(NodeDraft draft);
}
