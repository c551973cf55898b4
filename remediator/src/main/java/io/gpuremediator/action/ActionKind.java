package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;

/**
 * One kind of action, whole: how it is written in a playbook (decoded and checked), rendered for one alert and applied
 * to a node, and, for a long step, carried on in the background. A new kind is one class implementing this and one
 * row of {@link ActionRegistry}.
 *
 * @param <S> the spec record of this kind; its name is the kind's name as written ({@link ActionSpec#kindOf})
 */
public interface ActionKind<S extends ActionSpec> {
  /** The spec record of this kind. */
  Class<S> specType();

  /** The kind as written in playbooks, e.g. {@code taint}: derived from the spec record's name, written nowhere else. */
  default String name() {
    return ActionSpec.kindOf(specType());
  }

  /** The lists it may be used in ({@code actions}, {@code on_resolved}). */
  Set<Phase> phases();

  /** Decodes and checks its parameters; records every problem against its line and returns empty when there was one. */
  Optional<S> decode(MapReader params, boolean dryRun);

  /** Renders the spec's templates for one alert and checks every rendered value against its field. */
  PreparedAction prepare(S spec, TemplateContext ctx) throws RenderException;

  /** Whether a playbook may name it (the pre-flight gate's own step is built from the service config only). */
  default boolean inPlaybooks() {
    return true;
  }

  /** How the step is carried on in the background, when it is a long step. */
  default Optional<LongStep<S>> longStep() {
    return Optional.empty();
  }
}
