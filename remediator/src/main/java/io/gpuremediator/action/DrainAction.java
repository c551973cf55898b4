package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.playbook.ActionSpec.DrainSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.value.Durations;

/**
 * {@code drain: {mode, timeout, grace_period, skip_namespaces}}: a long step. Applied to a draft it only
 * says what will happen; the closed loop ({@code loop}) evicts the pods in the background.
 */
final class DrainAction implements ActionKind<DrainSpec> {
  @Override
  public String name() {
    return "drain";
  }

  @Override
  public Class<DrainSpec> specType() {
    return DrainSpec.class;
  }

  @Override
  public Step prepare(DrainSpec spec, TemplateContext ctx) {
    String what = "drain " + ctx.node() + ": " + spec.mode().code() + " pods (timeout " + Durations.format(spec.timeout())
        + ", grace period at most " + Durations.format(spec.gracePeriod()) + ", namespaces skipped: " + spec.skipNamespaces() + ")";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }
}
