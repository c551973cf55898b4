package io.gpuremediator.episode;

import io.gpuremediator.state.Held;

/**
 * One row of the table of holding kinds ({@link HoldingKinds}): how a thing of one kind that an episode held off its
 * node is given back once no episode holds it, and how it is seen gone. A new held thing is its record in
 * {@code state} (with a {@link Held} form) and one row here.
 */
interface HoldingKind {
  /** The kind it gives back ({@link Held#kind}). */
  String kind();

  /**
   * Gives {@code held} back on {@code node}, or sees it already gone; answers what was done, for the log. Then it is
   * forgotten.
   *
   * @throws TryLater the service it lives in did not answer: asked again on a later look, with backoff
   */
  String giveBack(String node, Held held) throws TryLater;

  /** A give-back to try again on a later look. */
  final class TryLater extends Exception {
    private static final long serialVersionUID = 1L;

    TryLater(String why) {
      super(why, null, false, false);
    }
  }
}
