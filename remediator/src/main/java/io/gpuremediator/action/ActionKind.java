package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;

/**
 * One kind of node action: how its parameters are written in a playbook, in which phase it may be
 * used, and how it applies to a node.
 *
 * @param <S> the spec record of this kind
 */
public interface ActionKind<S extends ActionSpec> {
  /** The kind as written in playbooks, e.g. {@code taint}. */
  String name();

  /** The spec record of this kind. */
  Class<S> specType();

  /** The phases this kind may be used in. */
  Set<Phase> phases();

  /** Decodes the parameters; records every problem and returns empty when there was one. */
  Optional<S> parse(MapReader params, boolean dryRun);

  /** Renders the spec's templates for one alert and checks every rendered value against its field. */
  Step prepare(S spec, TemplateContext ctx) throws RenderException;
}
