package io.gpuremediator.action;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** Decoding helpers shared by the step kinds' decoders; each problem is recorded against the key's line. */
final class ActionParams {
  private ActionParams() {}

  /** A required key of ours (label, taint or annotation key under gpu-remediator.io/). */
  static Optional<String> ownKey(MapReader params, String kind) {
    return params.requiredString("key").flatMap(key -> {
      Optional<String> invalid = FieldRule.QUALIFIED_NAME.check(key);
      if (invalid.isPresent()) {
        params.problems().add(params.at("key"), kind + " action: key " + invalid.get());
        return Optional.empty();
      }
      if (!NodeKeys.isWritableByPlaybook(key)) {
        params.problems().add(params.at("key"), kind + " action: key \"" + key + "\" must start with "
            + NodeKeys.DOMAIN + " and not be one the service reserves (" + NodeKeys.EXCLUDE_LABEL + ", "
            + NodeKeys.LEDGER_ANNOTATION + ", " + NodeKeys.MANAGED_LABEL + ")");
        return Optional.empty();
      }
      return Optional.of(key);
    });
  }

  /** A template; when it has no variables its value is checked against {@code rule} right away. */
  static Optional<Template> template(MapReader params, String key, FieldRule rule, boolean required, String kind) {
    Optional<String> text = required ? params.requiredString(key) : params.string(key);
    return text.flatMap(source -> {
      MapReader.Parsed<Template> parsed = Template.parse(source);
      if (parsed.error() != null) {
        params.problems().add(params.at(key), kind + " action: \"" + key + "\": " + parsed.error());
        return Optional.empty();
      }
      if (parsed.value().isConstant() && rule != FieldRule.MESSAGE) {
        Optional<String> invalid = rule.check(source);
        if (invalid.isPresent()) {
          params.problems().add(params.at(key), kind + " action: \"" + key + "\": " + invalid.get());
          return Optional.empty();
        }
      }
      return Optional.of(parsed.value());
    });
  }

  /** A taint effect, required or optional. */
  static Optional<TaintEffect> effect(MapReader params, boolean required, String kind) {
    Optional<String> text = required ? params.requiredString("effect") : params.string("effect");
    return text.flatMap(name -> {
      Optional<TaintEffect> effect = TaintEffect.fromApiName(name);
      if (effect.isEmpty()) {
        params.problems().add(params.at("effect"), kind + " action: \"effect\" must be one of "
            + Arrays.stream(TaintEffect.values()).map(TaintEffect::apiName).collect(Collectors.joining(", "))
            + ", not \"" + name + "\"");
      }
      return effect;
    });
  }

  /** An optional duration, more than 0 and at most {@code max}; {@code fallback} when absent. */
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

  /**
   * The {@code on_fail} key: the playbook an episode escalates to when the step fails.
   *
   * @return empty when absent (a human decides), or when invalid (recorded as a problem)
   */
  static Optional<String> onFail(MapReader params, String kind) {
    return playbookName(params, "on_fail", kind);
  }

  /** The key {@code key}: the name of a playbook (checked to exist once every file is loaded). */
  static Optional<String> playbookName(MapReader params, String key, String kind) {
    return params.string(key).filter(name -> {
      Optional<String> invalid = FieldRule.LABEL_VALUE.check(name);
      if (name.isEmpty() || invalid.isPresent()) {
        params.problems().add(params.at(key), kind + " action: \"" + key + "\" must name a playbook");
        return false;
      }
      return true;
    });
  }

  /** Whether an {@code on_fail} key is present but did not decode. */
  static boolean onFailInvalid(MapReader params, Optional<String> onFail) {
    return params.has("on_fail") && onFail.isEmpty();
  }

  /** What a failure of a step with this {@code on_fail} leads to, as decisions and explain say it. */
  static String onFailure(Optional<String> onFail) {
    return onFail.map(p -> "escalate to " + p).orElse("stay out of service for a human");
  }
}
