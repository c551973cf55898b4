package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.action.StepStages;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.state.Stage;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The transition table allows the moves of an episode's life, with a long step's own stages, and refuses the rest. */
class TransitionTest {
  private static final Optional<StepStages> DRAIN = Optional.of(new StepStages(Stage.DRAINING, Optional.of(Stage.DRAINED),
      Stage.DRAIN_FAILED, Reason.DRAIN_STARTED, Reason.DRAINED, Reason.DRAIN_FAILED));
  private static final Optional<StepStages> DIAGNOSE = Optional.of(new StepStages(Stage.DIAGNOSING, Optional.empty(),
      Stage.DIAGNOSTICS_FAILED, Reason.DIAGNOSE_STARTED, Reason.DIAGNOSTICS_PASSED, Reason.DIAGNOSTICS_FAILED));

  @Test
  void anEpisodesLifeThroughADrainAndADiagnosisIsInTheTable() {
    assertThatCode(() -> {
      Transition.OPENED.check(Optional.empty(), Stage.QUARANTINED, Optional.empty());
      Transition.STEP_STARTED.check(Optional.of(Stage.QUARANTINED), Stage.DRAINING, DRAIN);
      Transition.STEP_RUNNING.check(Optional.of(Stage.DRAINING), Stage.DRAINING, DRAIN);
      Transition.STEP_PASSED.check(Optional.of(Stage.DRAINING), Stage.DRAINED, DRAIN);
      Transition.RESOLVED.check(Optional.of(Stage.DRAINED), Stage.DRAINED, Optional.empty());
      Transition.STEP_STARTED.check(Optional.of(Stage.DRAINED), Stage.DIAGNOSING, DIAGNOSE);
      Transition.STEP_PASSED.check(Optional.of(Stage.DIAGNOSING), Stage.DIAGNOSING, DIAGNOSE);
      Transition.RELEASED.check(Optional.of(Stage.DIAGNOSING), Stage.RELEASED, Optional.empty());
    }).doesNotThrowAnyException();
  }

  @Test
  void aStepLeadsOnlyToItsOwnStages() {
    assertThatThrownBy(() -> Transition.STEP_PASSED.check(Optional.of(Stage.DRAINING), Stage.DIAGNOSING, DRAIN))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("STEP_PASSED from draining to diagnosing");
    assertThatThrownBy(() -> Transition.STEP_FAILED.check(Optional.of(Stage.DIAGNOSING), Stage.DRAIN_FAILED, DIAGNOSE))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Transition.STEP_STARTED.check(Optional.of(Stage.QUARANTINED), Stage.DRAINING, Optional.empty()))
        .as("a step move with no step").isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFailedEpisodeMovesOnlyByAHumanAndAnOpenEpisodeIsNeverOpenedAgain() {
    assertThatThrownBy(() -> Transition.STEP_STARTED.check(Optional.of(Stage.DRAIN_FAILED), Stage.DRAINING, DRAIN))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Transition.RETRIED.check(Optional.of(Stage.DRAINED), Stage.QUARANTINED, DRAIN))
        .as("only a failed step is retried").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Transition.OPENED.check(Optional.of(Stage.QUARANTINED), Stage.QUARANTINED, Optional.empty()))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Transition.REPLACED.check(Optional.of(Stage.DRAINED), Stage.REPLACED, Optional.empty()))
        .isInstanceOf(IllegalStateException.class);
    assertThatCode(() -> {
      Transition.RETRIED.check(Optional.of(Stage.DIAGNOSTICS_FAILED), Stage.DIAGNOSING, DIAGNOSE);
      Transition.RETRIED.check(Optional.of(Stage.DRAIN_FAILED), Stage.QUARANTINED, DRAIN);
      Transition.RELEASED_BY_HUMAN.check(Optional.of(Stage.NEEDS_HUMAN), Stage.RELEASED, Optional.empty());
    }).doesNotThrowAnyException();
  }

  @Test
  void theMovesThatEndAnEpisodeOrStopItForAHumanSayHow() {
    assertThat(Transition.RELEASED.endsAs()).contains("released");
    assertThat(Transition.RELEASED_BY_HUMAN.endsAs()).contains("released");
    assertThat(Transition.REPLACED.endsAs()).contains("replaced");
    assertThat(Transition.NEEDS_HUMAN.endsAs()).contains("needs_human");
    assertThat(Transition.STEP_FAILED.endsAs()).contains("needs_human");
    assertThat(Transition.ESCALATED.endsAs()).as("the escalated playbook goes on").isEmpty();
    assertThat(Transition.STEP_PASSED.endsAs()).isEmpty();
  }
}
