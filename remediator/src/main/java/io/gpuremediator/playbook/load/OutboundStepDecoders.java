package io.gpuremediator.playbook.load;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.playbook.ActionSpec.NotifySpec;
import io.gpuremediator.playbook.ActionSpec.ReplaceSpec;
import io.gpuremediator.playbook.ActionSpec.SilenceSpec;
import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.playbook.SilenceMatcher;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/** The parameters of the steps that act outside Kubernetes (replace, silence, notify), as written in playbooks. */
final class OutboundStepDecoders {
  /** The label every alert meant for the remediator carries: a silence must never mute those. */
  static final String REMEDIATE_LABEL = "remediate";
  private static final Pattern RECEIVER = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final int MAX_MATCHERS = 16;
  /** A regex matcher ({@code =~}, {@code !~}) whose value holds a template. */
  private static final Pattern REGEX_TEMPLATE = Pattern.compile("^\\s*[a-zA-Z_][a-zA-Z0-9_]*\\s*[=!]~.*\\{\\{.*");

  private OutboundStepDecoders() {}

  static Optional<ReplaceSpec> replace(MapReader params, boolean dryRun) {
    Optional<String> provider = params.requiredString("provider").filter(p -> {
      if (!p.equals("aws")) {
        params.problems().add(params.at("provider"), "replace action: \"provider\" must be aws, not \"" + p + "\"");
        return false;
      }
      return true;
    });
    Optional<Duration> timeout = LongStepDecoders.duration(params, "timeout", Duration.ofMinutes(30), Duration.ofHours(24), "replace");
    if (provider.isEmpty() || timeout.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new ReplaceSpec(provider.get(), timeout.get(), dryRun));
  }

  static Optional<SilenceSpec> silence(MapReader params, boolean dryRun) {
    Optional<List<SilenceMatcher>> matchers = matchers(params);
    Optional<Duration> duration = LongStepDecoders.duration(params, "duration", Duration.ofHours(24), Duration.ofHours(168), "silence");
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

  static Optional<NotifySpec> notify(MapReader params, boolean dryRun) {
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
}
