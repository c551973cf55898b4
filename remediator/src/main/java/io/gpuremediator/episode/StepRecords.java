package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.EventAction;
import io.gpuremediator.action.NodeDraft;
import io.gpuremediator.action.PreparedAction;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.TemplateContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a list of steps on a draft of the node, for the webhook and the background alike: every step is rendered
 * before any is applied (no partial action); immediate steps apply to the draft, a dry-run one to a copy; from
 * {@code backgroundFrom} on, each step only says what it will do ({@code pending}); a long step before that does not run
 * here ({@code not_run}, with the note saying why), and without an episode to carry it not even as a dry-run.
 */
final class StepRecords {
  /** The type an Event step's record carries (its kind's name). */
  static final String EVENT = ActionSpec.kindOf(EventAction.EventSpec.class);
  /** Why a long step of a resolution with no episode on the node does not run. */
  static final String NO_EPISODE = "no episode of this alert is active on the node";
  private StepRecords() {}

  /** Renders and checks every step for one alert. */
  static List<PreparedAction> prepare(List<ActionSpec> specs, TemplateContext ctx) throws RenderException {
    List<PreparedAction> steps = new ArrayList<>(specs.size());
    for (ActionSpec spec : specs) {
      steps.add(ActionRegistry.prepare(spec, ctx));
    }
    return steps;
  }

  /** Applies the steps to the draft and says what each did. */
  static List<ActionRecord> apply(NodeDraft draft, List<ActionSpec> specs, List<PreparedAction> steps, int backgroundFrom,
      String notRun, boolean episode) {
    List<ActionRecord> records = new ArrayList<>(steps.size());
    for (int i = 0; i < steps.size(); i++) {
      ActionSpec spec = specs.get(i);
      if (i >= backgroundFrom) {
        records.add(pending(steps.get(i).apply(draft.copy())));
      } else if (spec.isLongStep() && (!spec.dryRun() || !episode)) {
        records.add(new ActionRecord(spec.kind(), StepOutcome.NOT_RUN, notRun));
      } else {
        records.add(spec.dryRun() ? dryRunOf(steps.get(i).apply(draft.copy())) : steps.get(i).apply(draft));
      }
    }
    return records;
  }

  /** What a step would have done, marked as not written. */
  static ActionRecord dryRunOf(ActionRecord record) {
    return record.outcome() == StepOutcome.APPLIED || record.outcome() == StepOutcome.PENDING ? record.asDryRun() : record;
  }

  /** What a step will do in the background. */
  static ActionRecord pending(ActionRecord record) {
    return new ActionRecord(record.type(), StepOutcome.PENDING, record.change());
  }

  /**
   * What {@link #apply} would record, written nowhere (a dry-run): with no episode of the alert on the node, a long step
   * would not run (no diagnose Job), so the dry-run says {@code not_run} as the live path does.
   */
  static List<ActionRecord> simulate(NodeDraft draft, List<ActionSpec> specs, List<PreparedAction> steps, boolean noEpisode) {
    List<ActionRecord> records = new ArrayList<>(steps.size());
    for (int i = 0; i < steps.size(); i++) {
      records.add(noEpisode && specs.get(i).isLongStep()
          ? new ActionRecord(specs.get(i).kind(), StepOutcome.NOT_RUN, NO_EPISODE)
          : dryRunOf(steps.get(i).apply(draft)));
    }
    return records;
  }
}
