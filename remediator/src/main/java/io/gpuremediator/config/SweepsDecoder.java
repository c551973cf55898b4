package io.gpuremediator.config;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.sweep.SweepPolicy;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Decodes {@code sweeps: [{name, every, playbook, select, max_concurrent, priority_class}]}: name (a unique RFC 1123
 * label), every (10m to 30d) and playbook required; select a label selector; max_concurrent 1 to 100 (default 1);
 * priority_class gpu-remediator-sweep unless given. Whether the playbook exists and has a diagnose step is checked
 * against the loaded playbooks at start.
 */
final class SweepsDecoder {
  private static final String ITEM = "sweeps item";
  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private SweepsDecoder() {}

  static List<SweepPolicy> sweeps(MapReader config, Problems problems) {
    List<SweepPolicy> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    config.list("sweeps").ifPresent(items -> {
      for (Node item : items) {
        MapReader.of(item, ITEM, problems).flatMap(SweepsDecoder::item).ifPresent(s -> {
          if (names.add(s.name())) {
            out.add(s);
          } else {
            problems.add(item, ITEM + ": \"name\" " + s.name() + " is given twice (each sweep's Jobs are told apart by it)");
          }
        });
      }
    });
    return out;
  }

  private static Optional<SweepPolicy> item(MapReader s) {
    int before = s.problems().messages().size();
    Optional<String> name = s.requiredString("name");
    name.filter(n -> !LABEL.matcher(n).matches()).ifPresent(n -> s.problems().add(s.at("name"), "\"name\" in " + ITEM
        + " must be a lowercase RFC 1123 label of at most 63 characters (a-z, 0-9, '-'), not \"" + n + "\""));
    Optional<Duration> every = s.parsed("every", Durations::parse);
    if (!s.has("every")) {
      s.problems().add(s.node(), "missing required key \"every\" in " + ITEM + " (how often each node is swept)");
    }
    every.filter(e -> e.compareTo(SweepPolicy.MIN_EVERY) < 0 || e.compareTo(SweepPolicy.MAX_EVERY) > 0)
        .ifPresent(e -> s.problems().add(s.at("every"), "\"every\" in " + ITEM + " must be from 10m to 30d, not "
            + s.string("every").orElse(Durations.format(e))));
    Optional<String> playbook = s.requiredString("playbook");
    Optional<LabelSelector> select = s.has("select") ? s.parsed("select", LabelSelector::parse) : Optional.empty();
    long concurrent = s.count("max_concurrent").orElse(1L);
    if (concurrent < 1 || concurrent > SweepPolicy.MAX_CONCURRENT) {
      s.problems().add(s.at("max_concurrent"), "\"max_concurrent\" in " + ITEM + " must be 1 to "
          + SweepPolicy.MAX_CONCURRENT + ", not " + concurrent);
    }
    String priority = s.string("priority_class").orElse(SweepPolicy.DEFAULT_PRIORITY_CLASS);
    FieldRule.DNS_SUBDOMAIN.check(priority).ifPresent(e -> s.problems().add(s.at("priority_class"), "\"priority_class\" in " + ITEM
        + ": " + e));
    s.finish();
    if (s.problems().messages().size() != before) {
      return Optional.empty();
    }
    return Optional.of(new SweepPolicy(name.get(), every.get(), playbook.get(), select, (int) concurrent, priority));
  }
}
