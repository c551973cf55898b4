package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
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
   * @param kept what the step leaves for the episode to remember (an evidence Job, a fenced GPU) or to forget
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
     * An evidence Job the step left running ({@code namespace/name}, then {@code -> WHERE} its report is stored when the
     * step has a store), kept in the episode for people.
     */
    record EvidenceJob(String job) implements Kept {
      @Override
      public Episode applyTo(Episode e, String stepKey) {
        return e.withEvidence(stepKey, job);
      }
    }

    /** A GPU the step fenced: counted in the GPU budget, and unfenced by the episode's release. */
    record Fenced(FencedGpu gpu) implements Kept {
      @Override
      public Episode applyTo(Episode e, String stepKey) {
        return e.withFenced(stepKey, gpu);
      }
    }

    /** The episode's GPUs are no longer fenced. */
    record Unfenced() implements Kept {
      @Override
      public Episode applyTo(Episode e, String stepKey) {
        return e.withoutFenced();
      }
    }
  }

  /** Failed: the episode stops here (or escalates), decided with {@code reason}. */
  record Failed(Reason reason, String note) implements StepResult {}
}
