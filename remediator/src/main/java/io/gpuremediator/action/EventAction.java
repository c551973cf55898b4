package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;

/** {@code event: {reason, message[, type]}}: records a core/v1 Event on the node once the node write succeeded. */
public final class EventAction extends KindBase<EventAction.EventSpec> {
  /** Records a core/v1 Event on the node. */
  public record EventSpec(String type, Template reason, Template message, boolean dryRun) implements ActionSpec {
  }

  private static final Set<String> EVENT_TYPES = Set.of("Normal", "Warning");

  EventAction() {
    super(EventSpec.class, Set.of(Phase.FIRING, Phase.RESOLVED));
  }

  @Override
  public Optional<EventSpec> decode(MapReader params, boolean dryRun) {
    String type = params.string("type").orElse("Warning");
    boolean typeOk = EVENT_TYPES.contains(type);
    if (!typeOk) {
      params.problems().add(params.at("type"), "event action: \"type\" must be Normal or Warning, not \"" + type + "\"");
    }
    Optional<Template> reason = ActionParams.template(params, "reason", FieldRule.REASON, true, name());
    Optional<Template> message = ActionParams.template(params, "message", FieldRule.MESSAGE, true, name());
    if (!typeOk || reason.isEmpty() || message.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new EventSpec(type, reason.get(), message.get(), dryRun));
  }

  @Override
  public PreparedAction prepare(EventSpec spec, TemplateContext ctx) throws RenderException {
    String reason = Params.render(spec.reason(), ctx, FieldRule.REASON, "event reason");
    String message = Params.renderMessage(spec.message(), ctx);
    return draft -> {
      draft.events.add(new NodeEvent(draft.nodeName(), spec.type(), reason, message, draft.now()));
      return new ActionRecord(name(), StepOutcome.APPLIED, "record " + spec.type() + " event " + reason + ": " + message);
    };
  }
}
