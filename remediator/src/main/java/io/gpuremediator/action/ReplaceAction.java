package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.playbook.ActionSpec.ReplaceSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.value.Durations;

/**
 * {@code replace: {provider: aws, timeout}}: a long step. Applied to a draft it only says what will happen; the
 * closed loop ({@code loop}) marks the instance unhealthy and waits for the Node object to go.
 */
final class ReplaceAction implements ActionKind<ReplaceSpec> {
  @Override
  public String name() {
    return "replace";
  }

  @Override
  public Class<ReplaceSpec> specType() {
    return ReplaceSpec.class;
  }

  @Override
  public Step prepare(ReplaceSpec spec, TemplateContext ctx) {
    String what = "replace " + ctx.node() + ": mark its " + spec.provider() + " instance Unhealthy in its Auto Scaling group"
        + " (SetInstanceHealth, grace period respected), then wait up to " + Durations.format(spec.timeout())
        + " for the Node object to go";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }
}
