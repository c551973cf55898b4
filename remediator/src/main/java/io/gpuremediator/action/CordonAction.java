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

/** {@code cordon: {}}: marks the node unschedulable, remembering whether it already was. */
public final class CordonAction extends KindBase<CordonAction.CordonSpec> {
  /** Marks the node unschedulable. */
  public record CordonSpec(boolean dryRun) implements ActionSpec {
    @Override
    public boolean takesNodeOutOfService() {
      return !dryRun;
    }
  }

  CordonAction() {
    super(CordonSpec.class, Set.of(Phase.FIRING));
  }

  @Override
  public Optional<CordonSpec> decode(MapReader params, boolean dryRun) {
    return Optional.of(new CordonSpec(dryRun));
  }

  @Override
  public PreparedAction prepare(CordonSpec spec, TemplateContext ctx) {
    return this::apply;
  }

  private ActionRecord apply(NodeDraft draft) {
    boolean claimed = draft.ledger().claim(ClaimKey.CORDON).isPresent();
    draft.ledger(draft.ledger().hold(ClaimKey.CORDON, draft.holder(), draft.unschedulable && !claimed));
    if (!draft.unschedulable) {
      draft.unschedulable = true;
      return new ActionRecord(name(), StepOutcome.APPLIED, "cordon (spec.unschedulable=true)");
    }
    String whose = claimed ? "" : " (not by us; stays cordoned on release)";
    return new ActionRecord(name(), StepOutcome.UNCHANGED, "already cordoned" + whose);
  }
}
