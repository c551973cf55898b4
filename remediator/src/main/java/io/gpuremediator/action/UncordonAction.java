package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.playbook.ActionSpec.UncordonSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.ClaimKey;

/** {@code uncordon: {}}: makes the node schedulable, only if we cordoned it and no other alert needs the cordon. */
final class UncordonAction implements ActionKind<UncordonSpec> {
  @Override
  public String name() {
    return "uncordon";
  }

  @Override
  public Class<UncordonSpec> specType() {
    return UncordonSpec.class;
  }

  @Override
  public Step prepare(UncordonSpec spec, TemplateContext ctx) {
    return this::apply;
  }

  private ActionRecord apply(NodeDraft draft) {
    Claims.Release release = Claims.release(draft, ClaimKey.CORDON);
    if (release != Claims.Release.UNDO) {
      return Claims.unchanged(name(), release, "cordon");
    }
    if (!draft.unschedulable) {
      return new ActionRecord(name(), StepOutcome.UNCHANGED, "already schedulable");
    }
    draft.unschedulable = false;
    return new ActionRecord(name(), StepOutcome.APPLIED, "uncordon (spec.unschedulable=false)");
  }
}
