package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec.AnnotateSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.action.KeyValues.Kind;
import io.gpuremediator.state.ClaimKey;

/** {@code annotate: {key, value}}: sets an annotation of ours; never overwrites one we did not set. */
final class AnnotateAction implements ActionKind<AnnotateSpec> {
  @Override
  public String name() {
    return "annotate";
  }

  @Override
  public Class<AnnotateSpec> specType() {
    return AnnotateSpec.class;
  }

  @Override
  public Step prepare(AnnotateSpec spec, TemplateContext ctx) {
    String value = Params.renderMessage(spec.value(), ctx);
    return draft -> KeyValues.set(draft, Kind.ANNOTATIONS, ClaimKey.annotation(spec.key()), name(), spec.key(), value);
  }
}
