package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.outbound.SilenceRequest;
import io.gpuremediator.playbook.ActionSpec.SilenceSpec;
import io.gpuremediator.playbook.Matcher.Op;
import io.gpuremediator.playbook.SilenceMatcher;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.value.Durations;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code silence: {matchers, duration, comment}}: applied to a draft it only says what will be held; the closed loop
 * ({@code loop}) creates, renews and expires the silence, off the decision path.
 */
final class SilenceAction implements ActionKind<SilenceSpec> {
  @Override
  public String name() {
    return "silence";
  }

  @Override
  public Class<SilenceSpec> specType() {
    return SilenceSpec.class;
  }

  @Override
  public Step prepare(SilenceSpec spec, TemplateContext ctx) throws RenderException {
    List<SilenceRequest.Matcher> matchers = matchers(spec, ctx);
    String what = "hold an Alertmanager silence {" + matchers.stream().map(SilenceAction::text).collect(Collectors.joining(", "))
        + "} for " + Durations.format(spec.duration()) + " at a time while the episode lasts; expired when it ends";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  /**
   * The matchers rendered for one alert. A rendered equality must not be empty: {@code node=""} would match every
   * alert that has no node label.
   */
  static List<SilenceRequest.Matcher> matchers(SilenceSpec spec, TemplateContext ctx) throws RenderException {
    List<SilenceRequest.Matcher> out = new ArrayList<>(spec.matchers().size());
    for (SilenceMatcher m : spec.matchers()) {
      String value = m.value().render(ctx);
      if (value.isEmpty() && !m.value().isConstant()) {
        throw new RenderException("silence matcher " + m + " rendered an empty value: it would match alerts without "
            + m.label());
      }
      if (value.length() > 1024) {
        throw new RenderException("silence matcher " + m + " rendered a value over 1024 characters");
      }
      boolean regex = m.op() == Op.RE || m.op() == Op.NRE;
      boolean equal = m.op() == Op.EQ || m.op() == Op.RE;
      out.add(new SilenceRequest.Matcher(m.label(), value, regex, equal));
    }
    return out;
  }

  private static String text(SilenceRequest.Matcher m) {
    String op = (m.isEqual() ? "=" : "!=") + (m.isRegex() ? "~" : "");
    op = op.equals("!=~") ? "!~" : op;
    return m.name() + op + "\"" + m.value() + "\"";
  }
}
