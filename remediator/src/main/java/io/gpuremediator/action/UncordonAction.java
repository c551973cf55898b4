package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;

/** {@code uncordon: {}}: makes the node schedulable, only if we cordoned it and no other alert needs the cordon. */
public final class UncordonAction extends KindBase<UncordonAction.UncordonSpec> {
  /** Makes the node schedulable again, if we cordoned it. */
  public record UncordonSpec(boolean dryRun) implements ActionSpec {
  }

  UncordonAction() {
    super(UncordonSpec.class, Set.of(Phase.RESOLVED));
  }

  @Override
  public Optional<UncordonSpec> decode(MapReader params, boolean dryRun) {
    return Optional.of(new UncordonSpec(dryRun));
  }

  @Override
  public PreparedAction prepare(UncordonSpec spec, TemplateContext ctx) {
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
