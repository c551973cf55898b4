package io.gpuremediator.playbook.load;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.ActionSpec.AnnotateSpec;
import io.gpuremediator.playbook.ActionSpec.ConditionSpec;
import io.gpuremediator.playbook.ActionSpec.CordonSpec;
import io.gpuremediator.playbook.ActionSpec.DiagnoseSpec;
import io.gpuremediator.playbook.ActionSpec.DrainSpec;
import io.gpuremediator.playbook.ActionSpec.EventSpec;
import io.gpuremediator.playbook.ActionSpec.LabelSpec;
import io.gpuremediator.playbook.ActionSpec.TaintSpec;
import io.gpuremediator.playbook.ActionSpec.UncordonSpec;
import io.gpuremediator.playbook.ActionSpec.UnlabelSpec;
import io.gpuremediator.playbook.ActionSpec.UntaintSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.yaml.MapReader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How each action kind is written in a playbook: its name, the phases it may be used in, and the
 * decoding of its parameters into the kind's spec record. The one place a new kind's YAML is added.
 */
final class ActionDecoders {
  /** Decodes one kind's parameters; records every problem and returns empty when there was one. */
  @FunctionalInterface
  interface Decode {
    Optional<? extends ActionSpec> decode(MapReader params, boolean dryRun);
  }

  /** One kind as written in playbooks. */
  record Decoder(String name, Class<? extends ActionSpec> specType, Set<Phase> phases, Decode decode) {}

  private static final Set<Phase> FIRING = Set.of(Phase.FIRING);
  private static final Set<Phase> RESOLVED = Set.of(Phase.RESOLVED);
  private static final Set<Phase> BOTH = Set.of(Phase.FIRING, Phase.RESOLVED);
  private static final Set<String> KUBELET_CONDITIONS =
      Set.of("Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable");
  private static final Set<String> CONDITION_STATUSES = Set.of("True", "False", "Unknown");
  private static final Set<String> EVENT_TYPES = Set.of("Normal", "Warning");

  private static final Map<String, Decoder> BY_NAME = new LinkedHashMap<>();

  static {
    for (Decoder d : List.of(
        new Decoder("taint", TaintSpec.class, FIRING, ActionDecoders::taint),
        new Decoder("untaint", UntaintSpec.class, RESOLVED, ActionDecoders::untaint),
        new Decoder("cordon", CordonSpec.class, FIRING, (p, dryRun) -> Optional.of(new CordonSpec(dryRun))),
        new Decoder("uncordon", UncordonSpec.class, RESOLVED, (p, dryRun) -> Optional.of(new UncordonSpec(dryRun))),
        new Decoder("label", LabelSpec.class, FIRING, ActionDecoders::label),
        new Decoder("unlabel", UnlabelSpec.class, RESOLVED,
            (p, dryRun) -> ActionParams.ownKey(p, "unlabel").map(key -> new UnlabelSpec(key, dryRun))),
        new Decoder("annotate", AnnotateSpec.class, FIRING, ActionDecoders::annotate),
        new Decoder("condition", ConditionSpec.class, BOTH, ActionDecoders::condition),
        new Decoder("event", EventSpec.class, BOTH, ActionDecoders::event),
        new Decoder("drain", DrainSpec.class, BOTH, LongStepDecoders::drain),
        new Decoder("diagnose", DiagnoseSpec.class, BOTH, LongStepDecoders::diagnose),
        new Decoder("replace", ActionSpec.ReplaceSpec.class, BOTH, OutboundStepDecoders::replace),
        new Decoder("silence", ActionSpec.SilenceSpec.class, BOTH, OutboundStepDecoders::silence),
        new Decoder("notify", ActionSpec.NotifySpec.class, BOTH, OutboundStepDecoders::notify))) {
      BY_NAME.put(d.name(), d);
    }
  }

  private ActionDecoders() {}

  /** The kind written as {@code name}. */
  static Optional<Decoder> named(String name) {
    return Optional.ofNullable(BY_NAME.get(name));
  }

  /** Every kind, in the order they are listed in error messages. */
  static List<Decoder> all() {
    return List.copyOf(BY_NAME.values());
  }

  /** Every kind name. */
  static List<String> names() {
    return List.copyOf(BY_NAME.keySet());
  }

  private static Optional<TaintSpec> taint(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, "taint");
    boolean hasValue = params.has("value");
    Optional<Template> value = ActionParams.template(params, "value", FieldRule.LABEL_VALUE, false, "taint");
    Optional<TaintEffect> effect = ActionParams.effect(params, true, "taint");
    if (key.isEmpty() || effect.isEmpty() || (hasValue && value.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(new TaintSpec(key.get(), value.orElse(Template.literal("")), effect.get(), dryRun));
  }

  private static Optional<UntaintSpec> untaint(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, "untaint");
    boolean hasEffect = params.has("effect");
    Optional<TaintEffect> effect = ActionParams.effect(params, false, "untaint");
    if (key.isEmpty() || (hasEffect && effect.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(new UntaintSpec(key.get(), effect, dryRun));
  }

  private static Optional<LabelSpec> label(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, "label");
    Optional<Template> value = ActionParams.template(params, "value", FieldRule.LABEL_VALUE, true, "label");
    return key.isEmpty() || value.isEmpty() ? Optional.empty() : Optional.of(new LabelSpec(key.get(), value.get(), dryRun));
  }

  private static Optional<AnnotateSpec> annotate(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, "annotate");
    Optional<Template> value = ActionParams.template(params, "value", FieldRule.MESSAGE, true, "annotate");
    return key.isEmpty() || value.isEmpty() ? Optional.empty()
        : Optional.of(new AnnotateSpec(key.get(), value.get(), dryRun));
  }

  private static Optional<ConditionSpec> condition(MapReader params, boolean dryRun) {
    Optional<String> type = params.requiredString("type").filter(t -> {
      Optional<String> invalid = FieldRule.QUALIFIED_NAME.check(t);
      if (invalid.isPresent() || KUBELET_CONDITIONS.contains(t)) {
        params.problems().add(params.at("type"), "condition action: \"type\": "
            + invalid.orElse("\"" + t + "\" is owned by the kubelet"));
        return false;
      }
      return true;
    });
    Optional<String> status = params.requiredString("status").filter(s -> {
      if (!CONDITION_STATUSES.contains(s)) {
        params.problems().add(params.at("status"),
            "condition action: \"status\" must be one of True, False, Unknown, not \"" + s + "\"");
        return false;
      }
      return true;
    });
    Optional<Template> reason = ActionParams.template(params, "reason", FieldRule.REASON, true, "condition");
    boolean hasMessage = params.has("message");
    Optional<Template> message = ActionParams.template(params, "message", FieldRule.MESSAGE, false, "condition");
    if (type.isEmpty() || status.isEmpty() || reason.isEmpty() || (hasMessage && message.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(new ConditionSpec(type.get(), status.get(), reason.get(),
        message.orElse(Template.literal("")), dryRun));
  }

  private static Optional<EventSpec> event(MapReader params, boolean dryRun) {
    String type = params.string("type").orElse("Warning");
    boolean typeOk = EVENT_TYPES.contains(type);
    if (!typeOk) {
      params.problems().add(params.at("type"), "event action: \"type\" must be Normal or Warning, not \"" + type + "\"");
    }
    Optional<Template> reason = ActionParams.template(params, "reason", FieldRule.REASON, true, "event");
    Optional<Template> message = ActionParams.template(params, "message", FieldRule.MESSAGE, true, "event");
    if (!typeOk || reason.isEmpty() || message.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new EventSpec(type, reason.get(), message.get(), dryRun));
  }
}
