package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.Taint;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;

/** {@code taint: {key, value, effect}}: adds the taint, or updates the value of one we added. */
public final class TaintAction extends KindBase<TaintAction.TaintSpec> {
  /** Adds (or updates the value of) a taint. */
  public record TaintSpec(String key, Template value, TaintEffect effect, boolean dryRun) implements ActionSpec {
    @Override
    public Optional<String> taintKey() {
      return Optional.of(key);
    }

    /** NoSchedule and NoExecute keep work off the node; PreferNoSchedule only discourages it. */
    @Override
    public boolean takesNodeOutOfService() {
      return !dryRun && effect != TaintEffect.PREFER_NO_SCHEDULE;
    }
  }

  TaintAction() {
    super(TaintSpec.class, Set.of(Phase.FIRING));
  }

  @Override
  public Optional<TaintSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, name());
    boolean hasValue = params.has("value");
    Optional<Template> value = ActionParams.template(params, "value", FieldRule.LABEL_VALUE, false, name());
    Optional<TaintEffect> effect = ActionParams.effect(params, true, name());
    if (key.isEmpty() || effect.isEmpty() || (hasValue && value.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(new TaintSpec(key.get(), value.orElse(Template.literal("")), effect.get(), dryRun));
  }

  @Override
  public PreparedAction prepare(TaintSpec spec, TemplateContext ctx) throws RenderException {
    Taint wanted = new Taint(spec.key(), Params.render(spec.value(), ctx, FieldRule.LABEL_VALUE, "taint value"),
        spec.effect());
    return draft -> apply(draft, wanted);
  }

  private ActionRecord apply(NodeDraft draft, Taint wanted) {
    String claimKey = ClaimKey.taint(wanted.key(), wanted.effect().apiName());
    Optional<Taint> present = draft.taint(wanted.key(), wanted.effect());
    boolean ours = draft.ledger().claim(claimKey).map(c -> !c.preexisting()).orElse(false);
    boolean claimed = draft.ledger().claim(claimKey).isPresent();
    draft.ledger(draft.ledger().hold(claimKey, draft.holder(), present.isPresent() && !claimed));
    if (present.isEmpty()) {
      draft.taints.add(wanted);
      return new ActionRecord(name(), StepOutcome.APPLIED, "add taint " + wanted);
    }
    if (ours && !present.get().value().equals(wanted.value())) {
      draft.taints.set(draft.taints.indexOf(present.get()), wanted);
      return new ActionRecord(name(), StepOutcome.APPLIED, "set taint " + present.get() + " to " + wanted);
    }
    String whose = ours || claimed ? "" : " (not ours; kept on release)";
    return new ActionRecord(name(), StepOutcome.UNCHANGED, "taint " + present.get() + " already present" + whose);
  }
}
