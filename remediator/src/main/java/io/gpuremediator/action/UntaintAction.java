package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.yaml.MapReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@code untaint: {key[, effect]}}: removes a taint we added, once no other alert needs it. */
public final class UntaintAction extends KindBase<UntaintAction.UntaintSpec> {
  /** Removes a taint we added; with no effect, every effect of the key. */
  public record UntaintSpec(String key, Optional<TaintEffect> effect, boolean dryRun) implements ActionSpec {
    @Override
    public Optional<String> taintKey() {
      return Optional.of(key);
    }
  }

  UntaintAction() {
    super(UntaintSpec.class, Set.of(Phase.RESOLVED));
  }

  @Override
  public Optional<UntaintSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, name());
    boolean hasEffect = params.has("effect");
    Optional<TaintEffect> effect = ActionParams.effect(params, false, name());
    if (key.isEmpty() || (hasEffect && effect.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(new UntaintSpec(key.get(), effect, dryRun));
  }

  @Override
  public PreparedAction prepare(UntaintSpec spec, TemplateContext ctx) {
    List<TaintEffect> effects = spec.effect().map(List::of).orElse(List.of(TaintEffect.values()));
    return draft -> apply(draft, spec.key(), effects);
  }

  private ActionRecord apply(NodeDraft draft, String key, List<TaintEffect> effects) {
    List<TaintEffect> claimed = effects.stream()
        .filter(e -> draft.ledger().claim(ClaimKey.taint(key, e.apiName())).isPresent())
        .toList();
    if (claimed.isEmpty()) {
      return Claims.unchanged(name(), Claims.Release.NOT_OURS, "taint " + key);
    }
    List<String> removed = new ArrayList<>();
    ActionRecord unchanged = null;
    for (TaintEffect effect : claimed) {
      Claims.Release release = Claims.release(draft, ClaimKey.taint(key, effect.apiName()));
      if (release == Claims.Release.UNDO) {
        draft.taint(key, effect).ifPresent(t -> {
          draft.taints.remove(t);
          removed.add(t.toString());
        });
      } else if (unchanged == null) {
        unchanged = Claims.unchanged(name(), release, "taint " + key + ":" + effect.apiName());
      }
    }
    if (!removed.isEmpty()) {
      return new ActionRecord(name(), StepOutcome.APPLIED, "remove taint " + String.join(", ", removed));
    }
    return unchanged != null ? unchanged : new ActionRecord(name(), StepOutcome.UNCHANGED, "taint " + key + " already gone");
  }
}
