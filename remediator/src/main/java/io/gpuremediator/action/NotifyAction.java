package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.playbook.ActionSpec.NotifySpec;
import io.gpuremediator.playbook.TemplateContext;

/**
 * {@code notify: {receiver, message[, stage_changes]}}: applied to a draft it only says what will be sent; the closed
 * loop ({@code loop}) queues it once the step is reached, off the decision path.
 */
final class NotifyAction implements ActionKind<NotifySpec> {
  @Override
  public String name() {
    return "notify";
  }

  @Override
  public Class<NotifySpec> specType() {
    return NotifySpec.class;
  }

  @Override
  public Step prepare(NotifySpec spec, TemplateContext ctx) {
    String message = Params.renderMessage(spec.message(), ctx);
    String what = "notify " + spec.receiver() + ": " + message
        + (spec.stageChanges() ? " (and on every stage change of the episode)" : "");
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  /** The message rendered for one alert, cut to the message limit. */
  static String message(NotifySpec spec, TemplateContext ctx) {
    return Params.renderMessage(spec.message(), ctx);
  }
}
