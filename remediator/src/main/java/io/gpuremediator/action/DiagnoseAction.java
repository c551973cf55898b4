package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.playbook.ActionSpec.DiagnoseSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.value.Durations;

/**
 * {@code diagnose: {image, command, timeout, on_fail}}: a long step. Applied to a draft it only says what
 * will happen; the closed loop ({@code loop}) runs the Job in the background.
 */
final class DiagnoseAction implements ActionKind<DiagnoseSpec> {
  @Override
  public String name() {
    return "diagnose";
  }

  @Override
  public Class<DiagnoseSpec> specType() {
    return DiagnoseSpec.class;
  }

  @Override
  public Step prepare(DiagnoseSpec spec, TemplateContext ctx) {
    String what = "run " + String.join(" ", spec.command()) + " (" + spec.image() + ") as a Job on " + ctx.node()
        + " (timeout " + Durations.format(spec.timeout()) + "; on failure: "
        + spec.onFail().map(p -> "escalate to " + p).orElse("stay out of service for a human") + ")";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }
}
