package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.yaml.MapReader;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code notify: {receiver, message[, stage_changes]}}: applied to a draft it only says what will be sent; the closed
 * loop (the episode engine) queues it once the step is reached, off the decision path.
 */
public final class NotifyAction extends KindBase<NotifyAction.NotifySpec> {
  /**
   * Sends a message to a configured receiver when the step is reached.
   *
   * @param stageChanges whether every later stage change of the episode also notifies this receiver
   */
  public record NotifySpec(String receiver, Template message, boolean stageChanges, boolean dryRun) implements ActionSpec {
    @Override
    public Optional<Needs> needs() {
      return Optional.of(new Needs(Port.RECEIVER, receiver));
    }

    @Override
    public boolean runsInBackground() {
      return true;
    }
  }

  private static final Pattern RECEIVER = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  NotifyAction() {
    super(NotifySpec.class, Set.of(Phase.FIRING, Phase.RESOLVED));
  }

  @Override
  public Optional<NotifySpec> decode(MapReader params, boolean dryRun) {
    Optional<String> receiver = params.requiredString("receiver").filter(r -> {
      if (!RECEIVER.matcher(r).matches()) {
        params.problems().add(params.at("receiver"), "notify action: \"receiver\" must name a receiver of the service"
            + " config (lower-case letters, digits and -)");
        return false;
      }
      return true;
    });
    Optional<Template> message = ActionParams.template(params, "message", FieldRule.MESSAGE, true, "notify");
    boolean stageChanges = params.bool("stage_changes").orElse(false);
    if (receiver.isEmpty() || message.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new NotifySpec(receiver.get(), message.get(), stageChanges, dryRun));
  }

  @Override
  public PreparedAction prepare(NotifySpec spec, TemplateContext ctx) {
    String message = Params.renderMessage(spec.message(), ctx);
    String what = "notify " + spec.receiver() + ": " + message
        + (spec.stageChanges() ? " (and on every stage change of the episode)" : "");
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  /** The message rendered for one alert, cut to the message limit. */
  static String message(NotifySpec spec, TemplateContext ctx) {
    return Params.renderMessage(spec.message(), ctx);
  }
}
