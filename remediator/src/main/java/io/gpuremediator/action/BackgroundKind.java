package io.gpuremediator.action;

import io.gpuremediator.playbook.LongStepSpec;
import io.gpuremediator.playbook.Phase;
import java.util.Optional;
import java.util.Set;

/**
 * A step kind that is carried on in the background (drain, diagnose, pre-flight, GPU reset, reboot, replace): its spec
 * type, the lists it may stand in and its stages, given once; it is its own {@link LongStep}.
 *
 * @param <S> the spec record of the kind
 */
abstract class BackgroundKind<S extends LongStepSpec> extends KindBase<S> implements LongStep<S> {
  private final StepStages stages;

  BackgroundKind(Class<S> specType, Set<Phase> phases, StepStages stages) {
    super(specType, phases);
    this.stages = stages;
  }

  @Override
  public final Optional<LongStep<S>> longStep() {
    return Optional.of(this);
  }

  @Override
  public final StepStages stages() {
    return stages;
  }
}
