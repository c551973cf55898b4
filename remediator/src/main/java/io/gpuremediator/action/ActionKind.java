package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.TemplateContext;

/**
 * One kind of node action: how its spec, decoded by the playbook loader, is rendered for one alert and
 * applied to a node.
 *
 * @param <S> the spec record of this kind
 */
public interface ActionKind<S extends ActionSpec> {
  /** The kind as written in playbooks, e.g. {@code taint}. */
  String name();

  /** The spec record of this kind. */
  Class<S> specType();

  /** Renders the spec's templates for one alert and checks every rendered value against its field. */
  Step prepare(S spec, TemplateContext ctx) throws RenderException;
}
