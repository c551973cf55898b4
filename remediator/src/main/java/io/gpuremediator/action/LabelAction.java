package io.gpuremediator.action;

import io.gpuremediator.action.KeyValues.Kind;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;

/** {@code label: {key, value}}: sets a label of ours; never overwrites one we did not set. */
public final class LabelAction extends KindBase<LabelAction.LabelSpec> {
  /** Sets a label. */
  public record LabelSpec(String key, Template value, boolean dryRun) implements ActionSpec {
  }

  LabelAction() {
    super(LabelSpec.class, Set.of(Phase.FIRING));
  }

  @Override
  public Optional<LabelSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, name());
    Optional<Template> value = ActionParams.template(params, "value", FieldRule.LABEL_VALUE, true, name());
    return key.isEmpty() || value.isEmpty() ? Optional.empty() : Optional.of(new LabelSpec(key.get(), value.get(), dryRun));
  }

  @Override
  public PreparedAction prepare(LabelSpec spec, TemplateContext ctx) throws RenderException {
    String value = Params.render(spec.value(), ctx, FieldRule.LABEL_VALUE, "label value");
    return draft -> KeyValues.set(draft, Kind.LABELS, ClaimKey.label(spec.key()), name(), spec.key(), value);
  }
}
