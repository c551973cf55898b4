package io.gpuremediator.action;

import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.NodeLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The steps that undo what an episode still holds, for a human's release. */
public final class UndoSteps {
  private UndoSteps() {}

  /**
   * Undo steps for what the episode ({@code holder}) still holds that its release steps do not undo (a playbook without
   * on_resolved, like one that keeps a node for a human): its taints, its cordon and its labels. Conditions and
   * annotations have no undo kind and stay, as a human's record of what happened.
   */
  public static List<ActionSpec> leftovers(NodeLedger ledger, String holder, List<ActionSpec> release) {
    List<ActionSpec> out = new ArrayList<>();
    ledger.claims().forEach((text, claim) -> {
      if (!claim.holders().contains(holder)) {
        return;
      }
      ClaimKey key = ClaimKey.parse(text);
      if (key instanceof ClaimKey.Cordon && release.stream().noneMatch(a -> a instanceof ActionSpec.UncordonSpec)) {
        out.add(new ActionSpec.UncordonSpec(false));
      } else if (key instanceof ClaimKey.TaintClaim taint) {
        Optional<TaintEffect> effect = TaintEffect.fromApiName(taint.effect());
        if (effect.isPresent()
            && release.stream().noneMatch(a -> a instanceof ActionSpec.UntaintSpec u && u.key().equals(taint.key()))) {
          out.add(new ActionSpec.UntaintSpec(taint.key(), effect, false));
        }
      } else if (key instanceof ClaimKey.LabelClaim label
          && release.stream().noneMatch(a -> a instanceof ActionSpec.UnlabelSpec u && u.key().equals(label.key()))) {
        out.add(new ActionSpec.UnlabelSpec(label.key(), false));
      }
    });
    return out;
  }
}
