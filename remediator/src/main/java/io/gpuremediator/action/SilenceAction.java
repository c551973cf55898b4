package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.outbound.SilenceRequest;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.playbook.Matcher.Op;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.SilenceMatcher;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.nodes.Node;

/**
 * {@code silence: {matchers, duration, comment}}: applied to a draft it only says what will be held; the closed loop
 * (the episode engine) creates, renews and expires the silence, off the decision path.
 */
public final class SilenceAction extends KindBase<SilenceAction.SilenceSpec> {
  /**
   * Holds an Alertmanager silence while the episode lasts: created when the step is reached, renewed before it
   * ends, expired when the episode ends. Never a gate: the steps after it do not wait for Alertmanager.
   *
   * @param matchers what to silence; values may be templates (never a regex's)
   * @param duration how long each silence lasts; renewed while the episode lasts
   */
  public record SilenceSpec(List<SilenceMatcher> matchers, Duration duration, Template comment,
      boolean dryRun) implements ActionSpec {
    @Override
    public Optional<Needs> needs() {
      return Optional.of(new Needs(Port.ALERTMANAGER, ""));
    }

    /** Copies the matchers. */
    public SilenceSpec {
      matchers = List.copyOf(matchers);
    }

    @Override
    public boolean runsInBackground() {
      return true;
    }
  }

  /** The label every alert meant for the remediator carries: a silence must never mute those. */
  static final String REMEDIATE_LABEL = "remediate";
  private static final int MAX_MATCHERS = 16;
  /** A regex matcher ({@code =~}, {@code !~}) whose value holds a template. */
  private static final Pattern REGEX_TEMPLATE = Pattern.compile("^\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*[=!]~.*\\{\\{.*");

  SilenceAction() {
    super(SilenceSpec.class, Set.of(Phase.FIRING, Phase.RESOLVED));
  }

  @Override
  public Optional<SilenceSpec> decode(MapReader params, boolean dryRun) {
    Optional<List<SilenceMatcher>> matchers = matchers(params);
    Optional<Duration> duration = ActionParams.duration(params, "duration", Duration.ofHours(24), Duration.ofHours(168), "silence");
    Optional<Template> comment = params.has("comment")
        ? ActionParams.template(params, "comment", FieldRule.MESSAGE, false, "silence")
        : Optional.of(Template.parse("{{ node }} is under remediation by gpu-remediator").value());
    if (duration.isPresent() && duration.get().compareTo(Duration.ofMinutes(5)) < 0) {
      params.problems().add(params.at("duration"), "silence action: \"duration\" must be at least 5m (it is renewed"
          + " before it ends)");
      return Optional.empty();
    }
    if (matchers.isEmpty() || duration.isEmpty() || comment.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new SilenceSpec(matchers.get(), duration.get(), comment.get(), dryRun));
  }

  private static Optional<List<SilenceMatcher>> matchers(MapReader params) {
    if (!params.has("matchers")) {
      params.problems().add(params.node(), "silence action: missing required key \"matchers\"");
      params.take("matchers");
      return Optional.empty();
    }
    return params.list("matchers").flatMap(items -> {
      List<SilenceMatcher> out = new ArrayList<>();
      boolean ok = true;
      for (Node item : items) {
        Optional<SilenceMatcher> m = params.scalar(item, "matchers").flatMap(text -> matcher(params, item, text));
        ok &= m.isPresent();
        m.ifPresent(out::add);
      }
      if (!ok) {
        return Optional.empty();
      }
      if (out.isEmpty() || out.size() > MAX_MATCHERS) {
        params.problems().add(params.at("matchers"), "silence action: \"matchers\" must list 1 to " + MAX_MATCHERS
            + " matchers");
        return Optional.empty();
      }
      if (out.stream().allMatch(m -> m.admits(REMEDIATE_LABEL, "true"))) {
        params.problems().add(params.at("matchers"), "silence action: these matchers would silence remediation alerts"
            + " (" + REMEDIATE_LABEL + "=\"true\"); add " + REMEDIATE_LABEL + "!=\"true\"");
        return Optional.empty();
      }
      if (out.stream().allMatch(m -> m.op() == Matcher.Op.NE || m.op() == Matcher.Op.NRE)) {
        params.problems().add(params.at("matchers"), "silence action: at least one matcher must be = or =~ (Alertmanager"
            + " refuses a silence that matches every alert)");
        return Optional.empty();
      }
      return Optional.of(out);
    });
  }

  private static Optional<SilenceMatcher> matcher(MapReader params, Node item, String text) {
    if (REGEX_TEMPLATE.matcher(text).matches()) {
      params.problems().add(item, "silence action: matcher \"" + text + "\": a regex matcher's value must be literal"
          + " (a rendered label value must not become a regex)");
      return Optional.empty();
    }
    MapReader.Parsed<Matcher> parsed = Matcher.parse(text);
    if (parsed.error() != null) {
      params.problems().add(item, "silence action: " + parsed.error());
      return Optional.empty();
    }
    Matcher m = parsed.value();
    MapReader.Parsed<Template> value = Template.parse(m.value());
    if (value.error() != null) {
      params.problems().add(item, "silence action: matcher \"" + text + "\": " + value.error());
      return Optional.empty();
    }
    return Optional.of(new SilenceMatcher(m.label(), m.op(), value.value()));
  }

  @Override
  public PreparedAction prepare(SilenceSpec spec, TemplateContext ctx) throws RenderException {
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
