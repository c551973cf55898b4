package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.yaml.MapReader;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * {@code condition: {type, status, reason, message}}: sets a node status condition. In on_resolved it
 * sets the condition only when this alert set it and no other alert still needs it.
 */
public final class ConditionAction extends KindBase<ConditionAction.ConditionSpec> {
  /** Sets a node status condition. */
  public record ConditionSpec(String type, String status, Template reason, Template message, boolean dryRun)
      implements ActionSpec {
    @Override
    public boolean writesNodeStatus() {
      return !dryRun;
    }
  }

  private static final Set<String> KUBELET_CONDITIONS =
      Set.of("Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable");
  private static final Set<String> CONDITION_STATUSES = Set.of("True", "False", "Unknown");

  ConditionAction() {
    super(ConditionSpec.class, Set.of(Phase.FIRING, Phase.RESOLVED));
  }

  @Override
  public Optional<ConditionSpec> decode(MapReader params, boolean dryRun) {
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
    Optional<Template> reason = ActionParams.template(params, "reason", FieldRule.REASON, true, name());
    boolean hasMessage = params.has("message");
    Optional<Template> message = ActionParams.template(params, "message", FieldRule.MESSAGE, false, name());
    if (type.isEmpty() || status.isEmpty() || reason.isEmpty() || (hasMessage && message.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(new ConditionSpec(type.get(), status.get(), reason.get(),
        message.orElse(Template.literal("")), dryRun));
  }

  @Override
  public PreparedAction prepare(ConditionSpec spec, TemplateContext ctx) throws RenderException {
    String reason = Params.render(spec.reason(), ctx, FieldRule.REASON, "condition reason");
    String message = Params.renderMessage(spec.message(), ctx);
    return draft -> apply(draft, spec.type(), spec.status(), reason, message);
  }

  private ActionRecord apply(NodeDraft draft, String type, String status, String reason, String message) {
    String claimKey = ClaimKey.condition(type);
    if (draft.phase() == Phase.RESOLVED) {
      Claims.Release release = Claims.release(draft, claimKey);
      if (release != Claims.Release.UNDO) {
        return Claims.unchanged(name(), release, "condition " + type);
      }
    } else {
      draft.ledger(draft.ledger().hold(claimKey, draft.holder(), false));
    }
    NodeCondition found = null;
    for (NodeCondition c : draft.conditions) {
      if (c.type().equals(type)) {
        found = c;
        break;
      }
    }
    Optional<NodeCondition> present = Optional.ofNullable(found);
    String change = "set condition " + type + "=" + status + " reason=" + reason;
    if (present.isPresent() && present.get().status().equals(status) && present.get().reason().equals(reason)
        && present.get().message().equals(message)) {
      return new ActionRecord(name(), StepOutcome.UNCHANGED, "condition " + type + "=" + status + " reason=" + reason + " already set");
    }
    Instant now = draft.now();
    Instant transition = present.filter(c -> c.status().equals(status)).map(NodeCondition::lastTransitionTime)
        .orElse(now);
    NodeCondition wanted = new NodeCondition(type, status, reason, message, transition, now);
    present.ifPresentOrElse(c -> draft.conditions.set(draft.conditions.indexOf(c), wanted), () -> draft.conditions.add(wanted));
    return new ActionRecord(name(), StepOutcome.APPLIED, change);
  }
}
