package io.gpuremediator.config;

import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/** Decodes {@code preflight}: the gate new nodes pass before they take work. */
final class PreflightConfig {
  static final String DEFAULT_TAINT = NodeKeys.DOMAIN + "preflight";
  private static final int MAX_COMMAND_ARGS = 64;
  private static final Duration MAX_TIMEOUT = Duration.ofDays(7);

  private PreflightConfig() {}

  /** The Job each new node runs, as {@code preflight.diagnose} says. */
  private record Job(String image, List<String> command, Duration timeout) {}

  static Optional<PreflightSettings> decode(MapReader m, Problems problems) {
    return m.map("preflight", "preflight").flatMap(p -> {
      String taint = p.string("taint").orElse(DEFAULT_TAINT);
      Optional<String> badKey = FieldRule.QUALIFIED_NAME.check(taint);
      boolean badTaint = badKey.isPresent() || !NodeKeys.isWritableByPlaybook(taint);
      if (badTaint) {
        problems.add(p.at("taint"), "\"taint\" in preflight must be a taint key under " + NodeKeys.DOMAIN
            + " (the one taint the gate removes), not \"" + taint + "\"");
      }
      Optional<Job> job = p.map("diagnose", "preflight.diagnose").flatMap(d -> job(d, problems));
      if (!p.has("diagnose")) {
        problems.add(p.node(), "preflight: missing required key \"diagnose\" (image, command, timeout)");
      }
      CountOrPercent max = p.parsed("max_concurrent", CountOrPercent::parse).orElse(new CountOrPercent(10, false));
      if (max.value() < 1) {
        problems.add(p.at("max_concurrent"), "\"max_concurrent\" in preflight must allow at least 1 node");
      }
      Optional<String> onFail = p.string("on_fail").filter(name -> {
        if (name.isEmpty() || FieldRule.LABEL_VALUE.check(name).isPresent()) {
          problems.add(p.at("on_fail"), "\"on_fail\" in preflight must name a playbook");
          return false;
        }
        return true;
      });
      p.finish();
      return job.filter(j -> !badTaint).map(j -> new PreflightSettings(taint, j.image(), j.command(), j.timeout(), onFail,
          max));
    });
  }

  private static Optional<Job> job(MapReader d, Problems problems) {
    Optional<String> image = d.requiredString("image").filter(i -> {
      if (i.isBlank() || i.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
        problems.add(d.at("image"), "\"image\" in preflight.diagnose must be an image reference without spaces");
        return false;
      }
      return true;
    });
    List<String> command = new ArrayList<>();
    Optional<List<Node>> items = d.list("command");
    items.ifPresent(list -> list.forEach(n -> d.scalar(n, "command").ifPresent(command::add)));
    if (items.isEmpty() && !d.has("command")) {
      problems.add(d.node(), "preflight.diagnose: missing required key \"command\"");
    } else if (items.isPresent() && (command.size() != items.get().size() || command.isEmpty()
        || command.size() > MAX_COMMAND_ARGS)) {
      problems.add(d.at("command"), "\"command\" in preflight.diagnose must list 1 to " + MAX_COMMAND_ARGS + " strings");
    }
    Duration timeout = d.parsed("timeout", Durations::parse).orElse(Duration.ofMinutes(30));
    if (timeout.isZero() || timeout.isNegative() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      problems.add(d.at("timeout"), "\"timeout\" in preflight.diagnose must be between 1s and 7d");
    }
    d.finish();
    return image.filter(i -> !command.isEmpty()).map(i -> new Job(i, command, timeout));
  }
}
