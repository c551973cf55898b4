package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.playbook.ActionSpec.EventSpec;
import io.gpuremediator.playbook.TemplateContext;

/** {@code event: {reason, message[, type]}}: records a core/v1 Event on the node once the node write succeeded. */
final class EventAction implements ActionKind<EventSpec> {

  @Override
  public String name() {
    return "event";
  }

  @Override
  public Class<EventSpec> specType() {
    return EventSpec.class;
  }

  @Override
  public Step prepare(EventSpec spec, TemplateContext ctx) throws RenderException {
    String reason = Params.render(spec.reason(), ctx, FieldRule.REASON, "event reason");
    String message = Params.renderMessage(spec.message(), ctx);
    return draft -> {
      draft.events.add(new NodeEvent(draft.nodeName(), spec.type(), reason, message, draft.now()));
      return new ActionRecord(name(), StepOutcome.APPLIED, "record " + spec.type() + " event " + reason + ": " + message);
    };
  }
}
