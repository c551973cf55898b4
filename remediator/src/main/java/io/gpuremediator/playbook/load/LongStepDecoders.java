package io.gpuremediator.playbook.load;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.playbook.ActionSpec.DiagnoseSpec;
import io.gpuremediator.playbook.ActionSpec.DrainMode;
import io.gpuremediator.playbook.ActionSpec.DrainSpec;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.nodes.Node;

/** The parameters of the long steps (drain, diagnose), as written in playbooks. */
final class LongStepDecoders {
  /** Namespaces a drain leaves alone unless the playbook says otherwise: the cluster's and ours. */
  static final String DEFAULT_SKIP_NAMESPACES = "^(kube-system|gpu-operator|gpu-remediator)$";
  private static final Duration MAX_TIMEOUT = Duration.ofDays(7);
  private static final int MAX_COMMAND_ARGS = 64;
  private static final int MAX_IMAGE_CHARS = 512;

  private LongStepDecoders() {}

  static Optional<DrainSpec> drain(MapReader params, boolean dryRun) {
    Optional<DrainMode> mode = Optional.of(DrainMode.EVICT);
    if (params.has("mode")) {
      mode = params.requiredString("mode").flatMap(text -> {
        for (DrainMode m : DrainMode.values()) {
          if (m.code().equals(text)) {
            return Optional.of(m);
          }
        }
        params.problems().add(params.at("mode"), "drain action: \"mode\" must be one of "
            + Arrays.stream(DrainMode.values()).map(DrainMode::code).collect(Collectors.joining(", ")) + ", not \"" + text + "\"");
        return Optional.empty();
      });
    }
    Optional<Duration> timeout = duration(params, "timeout", Duration.ofMinutes(30), "drain");
    Optional<Duration> grace = duration(params, "grace_period", Duration.ofMinutes(5), "drain");
    Optional<Pattern> skip = Optional.of(Pattern.compile(DEFAULT_SKIP_NAMESPACES));
    if (params.has("skip_namespaces")) {
      skip = params.requiredString("skip_namespaces").flatMap(regex -> {
        try {
          return Optional.of(Pattern.compile(regex));
        } catch (PatternSyntaxException e) {
          params.problems().add(params.at("skip_namespaces"), "drain action: \"skip_namespaces\" is not a regular expression: "
              + e.getDescription());
          return Optional.empty();
        }
      });
    }
    if (mode.isEmpty() || timeout.isEmpty() || grace.isEmpty() || skip.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new DrainSpec(mode.get(), timeout.get(), grace.get(), skip.get(), dryRun));
  }

  static Optional<DiagnoseSpec> diagnose(MapReader params, boolean dryRun) {
    Optional<String> image = params.requiredString("image").filter(i -> {
      if (i.isBlank() || i.length() > MAX_IMAGE_CHARS || i.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
        params.problems().add(params.at("image"), "diagnose action: \"image\" must be an image reference without spaces, "
            + "at most " + MAX_IMAGE_CHARS + " characters");
        return false;
      }
      return true;
    });
    Optional<List<String>> command = command(params);
    Optional<Duration> timeout = duration(params, "timeout", Duration.ofMinutes(30), "diagnose");
    Optional<String> onFail = params.string("on_fail").filter(name -> {
      Optional<String> invalid = FieldRule.LABEL_VALUE.check(name);
      if (name.isEmpty() || invalid.isPresent()) {
        params.problems().add(params.at("on_fail"), "diagnose action: \"on_fail\" must name a playbook");
        return false;
      }
      return true;
    });
    boolean onFailBad = params.has("on_fail") && onFail.isEmpty();
    if (image.isEmpty() || command.isEmpty() || timeout.isEmpty() || onFailBad) {
      return Optional.empty();
    }
    return Optional.of(new DiagnoseSpec(image.get(), command.get(), timeout.get(), onFail, dryRun));
  }

  private static Optional<List<String>> command(MapReader params) {
    if (!params.has("command")) {
      params.problems().add(params.node(), "diagnose action: missing required key \"command\"");
      params.take("command");
      return Optional.empty();
    }
    return params.list("command").flatMap(items -> {
      List<String> out = new ArrayList<>();
      for (Node item : items) {
        params.scalar(item, "command").ifPresent(out::add);
      }
      if (out.size() != items.size() || out.isEmpty() || out.size() > MAX_COMMAND_ARGS) {
        params.problems().add(params.at("command"), "diagnose action: \"command\" must list 1 to " + MAX_COMMAND_ARGS
            + " strings");
        return Optional.empty();
      }
      return Optional.of(out);
    });
  }

  private static Optional<Duration> duration(MapReader params, String key, Duration fallback, String kind) {
    return duration(params, key, fallback, MAX_TIMEOUT, kind);
  }

  /** An optional duration, more than 0 and at most {@code max}. */
  static Optional<Duration> duration(MapReader params, String key, Duration fallback, Duration max, String kind) {
    if (!params.has(key)) {
      params.take(key);
      return Optional.of(fallback);
    }
    return params.parsed(key, Durations::parse).filter(d -> {
      if (d.isZero() || d.isNegative() || d.compareTo(max) > 0) {
        params.problems().add(params.at(key), kind + " action: \"" + key + "\" must be more than 0 and at most "
            + Durations.format(max));
        return false;
      }
      return true;
    });
  }
}
