package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Held;
import java.time.Instant;
import java.util.Optional;

/** What one look at a long step found. */
public sealed interface StepResult {
  /** Still under way; look again at {@code retryAt} (or the next tick). */
  record Running(String note, Optional<Instant> retryAt) implements StepResult {}

  /**
   * Its work began outside Kubernetes (a Job created, an instance marked): the task records {@code handle}, and the
   * {@code started} decision says {@code detail}.
   */
  record Started(String handle, String note, String detail) implements StepResult {}

  /**
   * Records {@code handle} in the task (what the step knows so far, or an intent cleared after a refusal), quietly;
   * looked at again at {@code retryAt}, or at once.
   */
  record Recorded(String handle, String note, Optional<Instant> retryAt) implements StepResult {}

  /**
   * About to ask something outside that must never be asked twice (a reboot): {@code handle}, which says so, is written
   * to the ledger first, and only once it is written does {@link LongStep#send} ask, in the same look. A look that
   * finds the intent recorded and no answer (a restart came between) treats it as asked.
   */
  record Intent(String handle, String note) implements StepResult {}

  /**
   * Done: the next step may start.
   *
   * @param kept what the step leaves the episode holding (an evidence Job, a fenced GPU) or gave back
   */
  record Succeeded(String note, Kept kept) implements StepResult {
    /** Done, leaving nothing behind. */
    public Succeeded(String note) {
      this(note, new Kept.Nothing());
    }
  }

  /** What a step that passed leaves in its episode's record. */
  sealed interface Kept {
    /** The episode as it is once the step {@code stepKey} passed. */
    Episode applyTo(Episode e, String stepKey);

    /** Nothing. */
    record Nothing() implements Kept {
      @Override
      public Episode applyTo(Episode e, String stepKey) {
        return e;
      }
    }

    /**
     * A thing the step holds off the node from now on (an evidence Job, a fenced GPU), under the step's key: counted
     * where it counts (a fenced GPU in the GPU limits), and given back once no episode holds it.
     */
    record Holds(Held held) implements Kept {
      @Override
      public Episode applyTo(Episode e, String stepKey) {
        return e.withHeld(stepKey, held);
      }
    }

    /** The step gave back every thing of {@code kind} the episode held (an unfence deleted its rules). */
    record GaveBack(String kind) implements Kept {
      @Override
      public Episode applyTo(Episode e, String stepKey) {
        return e.withoutKind(kind);
      }
    }
  }

  /**
   * Failed: the episode stops here (or escalates), decided with {@code reason}.
   *
   * @param escalateTo the playbook the failure's own verdict chose ({@code on_verdict}); empty: the step's on_fail
   */
  record Failed(Reason reason, String note, Optional<String> escalateTo) implements StepResult {
    /** A failure that escalates as its step's {@code on_fail} says. */
    public Failed(Reason reason, String note) {
      this(reason, note, Optional.empty());
    }
  }
}
