package io.gpuremediator.action;

import io.gpuremediator.action.NotifyAction.NotifySpec;
import io.gpuremediator.action.SilenceAction.SilenceSpec;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.outbound.SilenceRequest;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.safety.GpuBudget;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import java.time.Instant;
import java.util.ArrayList;
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
      new CollectAction(),
      new FenceGpuAction(),
      new UnfenceGpuAction(),
      new DrainAction(),
      new DiagnoseAction(),
      new PreflightAction(),
      new GpuResetAction(),
      new RebootAction(),
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

  /** Every name a playbook may write, in registration order. */
  public static List<String> names() {
    return KINDS.stream().filter(ActionKind::inPlaybooks).map(ActionKind::name).toList();
  }

  /** Renders and checks one action of a playbook for one alert. */
  public static PreparedAction prepare(ActionSpec spec, TemplateContext ctx) throws RenderException {
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

  /**
   * Gives back what the episode holds outside its node at its end (a human's release, a human's override, its last
   * step): the DeviceTaintRules of its fenced GPUs, and what every long step kind holds for the node. Says which of
   * its GPUs still carry their driver's own taint.
   */
  public static List<String> giveBack(String node, Episode e, StepPorts ports) throws ClusterException {
    cancelAll(node, ports);
    return UnfenceGpuAction.giveBack(node, e, ports);
  }

  /** Gives back one DeviceTaintRule of the node that no episode holds any more, if it is ours; says what was done. */
  public static String giveBackFence(String node, String rule, StepPorts ports) throws ClusterException {
    return UnfenceGpuAction.giveBackRule(node, rule, ports);
  }

  /** The silence a step holds while its episode lasts, when it is a silence step. */
  public static Optional<SilenceSpec> silence(ActionSpec spec) {
    return spec instanceof SilenceSpec s ? Optional.of(s) : Optional.empty();
  }

  /**
   * Takes the place the GPU a fence step fences needs in the GPU limits, asked when its episode is admitted: empty when
   * the step fences nothing, its GPU cannot be rendered yet (the step says so when it runs), or there is room.
   */
  public static Optional<Refusal> gpuRoom(ActionSpec spec, TemplateContext ctx, GpuBudget gpus, String node,
      Instant now) {
    return spec instanceof FenceGpuAction.FenceGpuSpec f ? FenceGpuAction.room(f, ctx, gpus, node, now) : Optional.empty();
  }

  /**
   * What a step would find on the cluster, for a dry-run's decision (read only): the device a fence step would fence.
   */
  public static Optional<String> dryRunFindings(ActionSpec spec, TemplateContext ctx, StepPorts ports, String node,
      Instant now) {
    return spec instanceof FenceGpuAction.FenceGpuSpec f ? Optional.of(FenceGpuAction.wouldFence(f, ctx, ports, node, now))
        : Optional.empty();
  }

  /** The diagnostic a step runs, when it is a diagnose step (what a sweep runs of its playbook). */
  public static Optional<DiagnoseAction.DiagnoseSpec> diagnostic(ActionSpec spec) {
    return spec instanceof DiagnoseAction.DiagnoseSpec d ? Optional.of(d) : Optional.empty();
  }

  /** The notification a step sends, when it is a notify step. */
  public static Optional<NotifySpec> notification(ActionSpec spec) {
    return spec instanceof NotifySpec n ? Optional.of(n) : Optional.empty();
  }

  /**
   * Undo steps for what the episode ({@code holder}) still holds that its release steps do not undo (a playbook without
   * on_resolved, like one that keeps a node for a human): its taints, its cordon and its labels. Conditions and
   * annotations have no undo kind and stay, as a human's record of what happened.
   */
  public static List<ActionSpec> undoLeftovers(NodeLedger ledger, String holder, List<ActionSpec> release) {
    List<ActionSpec> out = new ArrayList<>();
    ledger.claims().forEach((text, claim) -> {
      if (!claim.holders().contains(holder)) {
        return;
      }
      ClaimKey key = ClaimKey.parse(text);
      if (key instanceof ClaimKey.Cordon && release.stream().noneMatch(a -> a instanceof UncordonAction.UncordonSpec)) {
        out.add(new UncordonAction.UncordonSpec(false));
      } else if (key instanceof ClaimKey.TaintClaim taint) {
        Optional<TaintEffect> effect = TaintEffect.fromApiName(taint.effect());
        if (effect.isPresent()
            && release.stream().noneMatch(a -> a instanceof UntaintAction.UntaintSpec u && u.key().equals(taint.key()))) {
          out.add(new UntaintAction.UntaintSpec(taint.key(), effect, false));
        }
      } else if (key instanceof ClaimKey.LabelClaim label
          && release.stream().noneMatch(a -> a instanceof UnlabelAction.UnlabelSpec u && u.key().equals(label.key()))) {
        out.add(new UnlabelAction.UnlabelSpec(label.key(), false));
      }
    });
    return out;
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
  private static <S extends ActionSpec> PreparedAction prepareAs(ActionKind<S> kind, ActionSpec spec, TemplateContext ctx)
      throws RenderException {
    return kind.prepare((S) spec, ctx);
  }
}
