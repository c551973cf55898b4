package io.gpuremediator.action;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.playbook.ActionSpec.LabelSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.action.KeyValues.Kind;
import io.gpuremediator.state.ClaimKey;

/** {@code label: {key, value}}: sets a label of ours; never overwrites one we did not set. */
final class LabelAction implements ActionKind<LabelSpec> {
  @Override
  public String name() {
    return "label";
  }

  @Override
  public Class<LabelSpec> specType() {
    return LabelSpec.class;
  }

  @Override
  public Step prepare(LabelSpec spec, TemplateContext ctx) throws RenderException {
    String value = Params.render(spec.value(), ctx, FieldRule.LABEL_VALUE, "label value");
    return draft -> KeyValues.set(draft, Kind.LABELS, ClaimKey.label(spec.key()), name(), spec.key(), value);
  }
}
