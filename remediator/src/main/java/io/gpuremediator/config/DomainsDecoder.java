package io.gpuremediator.config;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.safety.DomainBudget;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/** Decodes {@code safety.domains}: each failure domain's label, budget and incident threshold. */
final class DomainsDecoder {
  private DomainsDecoder() {}

  /** {@code safety.domains}: a list of {label, max_unavailable, incident: {nodes, window}}; a label at most once. */
  static List<DomainBudget> domains(MapReader safety, Problems problems) {
    List<DomainBudget> out = new ArrayList<>();
    safety.list("domains").ifPresent(items -> {
      for (Node item : items) {
        MapReader.of(item, "safety.domains item", problems).ifPresent(d -> {
          Optional<String> label = d.requiredString("label").filter(l -> {
            Optional<String> bad = FieldRule.QUALIFIED_NAME.check(l);
            bad.ifPresent(e -> problems.add(d.at("label"), "\"label\" in safety.domains: " + e));
            if (bad.isEmpty() && out.stream().anyMatch(o -> o.label().equals(l))) {
              problems.add(d.at("label"), "\"label\" in safety.domains: " + l + " is listed twice");
              return false;
            }
            return bad.isEmpty();
          });
          Optional<CountOrPercent> budget = d.parsed("max_unavailable", CountOrPercent::parse);
          if (!d.has("max_unavailable")) {
            problems.add(d.node(), "safety.domains item: missing required key \"max_unavailable\" (int or percent)");
          }
          boolean hasIncident = d.has("incident");
          Optional<DomainBudget.IncidentRule> incident = d.map("incident", "safety.domains item's incident").flatMap(i -> {
            if (!i.has("nodes")) {
              problems.add(i.node(), "safety.domains item's incident: missing required key \"nodes\" (a positive integer)");
            }
            Optional<Long> nodes = i.count("nodes").filter(n -> {
              if (n < 1) {
                problems.add(i.at("nodes"), "\"nodes\" in safety.domains item's incident must be at least 1");
              }
              return n >= 1;
            });
            Duration window = i.parsed("window", Durations::parse).orElse(Duration.ofMinutes(15));
            i.finish();
            return nodes.map(n -> new DomainBudget.IncidentRule(n.intValue(), window));
          });
          d.finish();
          if (label.isPresent() && budget.isPresent() && (incident.isPresent() || !hasIncident)) {
            out.add(new DomainBudget(label.get(), budget.get(), incident));
          }
        });
      }
    });
    return out;
  }
}
