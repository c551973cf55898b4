package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import java.util.Set;

/**
 * What every step kind says once: its spec record and the lists it may stand in ({@code actions},
 * {@code on_resolved}); the kind's name follows from the spec record's.
 *
 * @param <S> the spec record of the kind
 */
abstract class KindBase<S extends ActionSpec> implements ActionKind<S> {
  private final Class<S> specType;
  private final Set<Phase> phases;

  KindBase(Class<S> specType, Set<Phase> phases) {
    this.specType = specType;
    this.phases = Set.copyOf(phases);
  }

  @Override
  public final Class<S> specType() {
    return specType;
  }

  @Override
  public final Set<Phase> phases() {
    return phases;
  }
}
