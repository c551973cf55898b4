package io.gpuremediator.action;

import io.gpuremediator.action.KeyValues.Kind;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;

/** {@code unlabel: {key}}: removes a label we set, once no other alert needs it. */
public final class UnlabelAction extends KindBase<UnlabelAction.UnlabelSpec> {
  /** Removes a label we set. */
  public record UnlabelSpec(String key, boolean dryRun) implements ActionSpec {
  }

  UnlabelAction() {
    super(UnlabelSpec.class, Set.of(Phase.RESOLVED));
  }

  @Override
  public Optional<UnlabelSpec> decode(MapReader params, boolean dryRun) {
    return ActionParams.ownKey(params, name()).map(key -> new UnlabelSpec(key, dryRun));
  }

  @Override
  public PreparedAction prepare(UnlabelSpec spec, TemplateContext ctx) {
    return draft -> KeyValues.remove(draft, Kind.LABELS, ClaimKey.label(spec.key()), name(), spec.key());
  }
}
