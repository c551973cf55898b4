package io.gpuremediator.action;

import io.gpuremediator.outbound.SilenceRequest;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.ActionSpec.NotifySpec;
import io.gpuremediator.playbook.ActionSpec.SilenceSpec;
import io.gpuremediator.playbook.TemplateContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every step kind, one row each: the one place a new kind is registered for decoding, rendering, applying and, for a
 * long step, running in the background. Everything else reaches a kind through here, never by its spec's type.
 */
public final class ActionRegistry {
  private static final List<ActionKind<?>> KINDS = List.of(
      new TaintAction(),
      new UntaintAction(),
      new CordonAction(),
      new UncordonAction(),
      new LabelAction(),
      new UnlabelAction(),
      new AnnotateAction(),
      new ConditionAction(),
      new EventAction(),
      new DrainAction(),
      new DiagnoseAction(),
      new ReplaceAction(),
      new SilenceAction(),
      new NotifyAction());

  private static final Map<Class<?>, ActionKind<?>> BY_SPEC = new LinkedHashMap<>();
  private static final Map<String, ActionKind<?>> BY_NAME = new LinkedHashMap<>();

  static {
    for (ActionKind<?> kind : KINDS) {
      BY_SPEC.put(kind.specType(), kind);
      BY_NAME.put(kind.name(), kind);
    }
  }

  private ActionRegistry() {}

  /** Every kind, in registration order (the order error messages list them in). */
  public static List<ActionKind<?>> all() {
    return KINDS;
  }

  /** The kind written as {@code name} in a playbook. */
  public static Optional<ActionKind<?>> named(String name) {
    return Optional.ofNullable(BY_NAME.get(name));
  }

  /** Every kind's name, in registration order. */
  public static List<String> names() {
    return List.copyOf(BY_NAME.keySet());
  }

  /** Renders and checks one action of a playbook for one alert. */
  public static Step prepare(ActionSpec spec, TemplateContext ctx) throws RenderException {
    return prepareAs(kindOf(spec), spec, ctx);
  }

  /** How the spec's step runs in the background, when it is a long step. */
  @SuppressWarnings("unchecked")
  public static Optional<LongStep<ActionSpec>> longStep(ActionSpec spec) {
    return kindOf(spec).longStep().map(step -> (LongStep<ActionSpec>) step);
  }

  /** Gives back what every long step kind holds for the node (its episode ended, or a human released it). */
  public static void cancelAll(String node, StepPorts ports) {
    for (ActionKind<?> kind : KINDS) {
      kind.longStep().ifPresent(step -> step.cancel(node, ports));
    }
  }

  /** A silence step's matchers rendered for one alert. */
  public static List<SilenceRequest.Matcher> silenceMatchers(SilenceSpec spec, TemplateContext ctx) throws RenderException {
    return SilenceAction.matchers(spec, ctx);
  }

  /** A silence step's comment rendered for one alert. */
  public static String silenceComment(SilenceSpec spec, TemplateContext ctx) {
    return Params.renderMessage(spec.comment(), ctx);
  }

  /** A notify step's message rendered for one alert. */
  public static String notifyMessage(NotifySpec spec, TemplateContext ctx) {
    return NotifyAction.message(spec, ctx);
  }

  private static ActionKind<?> kindOf(ActionSpec spec) {
    ActionKind<?> kind = BY_SPEC.get(spec.getClass());
    if (kind == null) {
      throw new IllegalArgumentException("no step kind is registered for " + spec.getClass().getSimpleName());
    }
    return kind;
  }

  @SuppressWarnings("unchecked")
  private static <S extends ActionSpec> Step prepareAs(ActionKind<S> kind, ActionSpec spec, TemplateContext ctx)
      throws RenderException {
    return kind.prepare((S) spec, ctx);
  }
}
