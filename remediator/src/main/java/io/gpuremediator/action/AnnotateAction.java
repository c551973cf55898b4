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

/** {@code annotate: {key, value}}: sets an annotation of ours; never overwrites one we did not set. */
public final class AnnotateAction extends KindBase<AnnotateAction.AnnotateSpec> {
  /** Sets an annotation. */
  public record AnnotateSpec(String key, Template value, boolean dryRun) implements ActionSpec {
  }

  AnnotateAction() {
    super(AnnotateSpec.class, Set.of(Phase.FIRING));
  }

  @Override
  public Optional<AnnotateSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> key = ActionParams.ownKey(params, name());
    Optional<Template> value = ActionParams.template(params, "value", FieldRule.MESSAGE, true, name());
    return key.isEmpty() || value.isEmpty() ? Optional.empty()
        : Optional.of(new AnnotateSpec(key.get(), value.get(), dryRun));
  }

  @Override
  public PreparedAction prepare(AnnotateSpec spec, TemplateContext ctx) {
    String value = Params.renderMessage(spec.value(), ctx);
    return draft -> KeyValues.set(draft, Kind.ANNOTATIONS, ClaimKey.annotation(spec.key()), name(), spec.key(), value);
  }
}
