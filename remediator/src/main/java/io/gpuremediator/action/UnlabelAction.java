package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec.UnlabelSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.action.KeyValues.Kind;
import io.gpuremediator.state.ClaimKey;

/** {@code unlabel: {key}}: removes a label we set, once no other alert needs it. */
final class UnlabelAction implements ActionKind<UnlabelSpec> {
  @Override
  public String name() {
    return "unlabel";
  }

  @Override
  public Class<UnlabelSpec> specType() {
    return UnlabelSpec.class;
  }

  @Override
  public Step prepare(UnlabelSpec spec, TemplateContext ctx) {
    return draft -> KeyValues.remove(draft, Kind.LABELS, ClaimKey.label(spec.key()), name(), spec.key());
  }
}
