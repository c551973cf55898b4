package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.TemplateContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every action kind, by spec type. The one place a new kind is registered for rendering and applying. */
public final class ActionRegistry {
  private static final List<ActionKind<?>> KINDS = List.of(
      new TaintAction(), new UntaintAction(), new CordonAction(), new UncordonAction(),
      new LabelAction(), new UnlabelAction(), new AnnotateAction(), new ConditionAction(), new EventAction(),
      new DrainAction(), new DiagnoseAction(), new ReplaceAction(), new SilenceAction(), new NotifyAction());

  private static final Map<Class<?>, ActionKind<?>> BY_SPEC = new LinkedHashMap<>();

  static {
    for (ActionKind<?> kind : KINDS) {
      BY_SPEC.put(kind.specType(), kind);
    }
  }

  private ActionRegistry() {}

  /** The spec types that have a kind, in registration order. */
  public static List<Class<?>> specTypes() {
    return List.copyOf(BY_SPEC.keySet());
  }

  /** Renders and checks one action of a playbook for one alert. */
  public static Step prepare(ActionSpec spec, TemplateContext ctx) throws RenderException {
    return prepareAs(BY_SPEC.get(spec.getClass()), spec, ctx);
  }

  /** A silence step's matchers rendered for one alert. */
  public static java.util.List<io.gpuremediator.outbound.SilenceRequest.Matcher> silenceMatchers(
      io.gpuremediator.playbook.ActionSpec.SilenceSpec spec, TemplateContext ctx) throws RenderException {
    return SilenceAction.matchers(spec, ctx);
  }

  /** A silence step's comment rendered for one alert. */
  public static String silenceComment(io.gpuremediator.playbook.ActionSpec.SilenceSpec spec, TemplateContext ctx) {
    return Params.renderMessage(spec.comment(), ctx);
  }

  /** A notify step's message rendered for one alert. */
  public static String notifyMessage(io.gpuremediator.playbook.ActionSpec.NotifySpec spec, TemplateContext ctx) {
    return NotifyAction.message(spec, ctx);
  }

  @SuppressWarnings("unchecked")
  private static <S extends ActionSpec> Step prepareAs(ActionKind<S> kind, ActionSpec spec, TemplateContext ctx)
      throws RenderException {
    return kind.prepare((S) spec, ctx);
  }
}
