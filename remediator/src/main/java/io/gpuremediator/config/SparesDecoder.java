package io.gpuremediator.config;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.SparePolicy;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.util.Optional;

/** Decodes {@code spares: {select, count, taint}} (select and count required; taint gpu-remediator.io/spare). */
final class SparesDecoder {
  private SparesDecoder() {}

  static Optional<SparePolicy> spares(MapReader config, Problems problems) {
    return config.map("spares", "spares").flatMap(s -> {
      Optional<LabelSelector> select = s.has("select") ? s.parsed("select", LabelSelector::parse) : Optional.empty();
      if (!s.has("select")) {
        problems.add(s.node(), "missing required key \"select\" in spares (a label selector of the nodes the pool holds)");
      }
      Optional<Long> count = s.count("count");
      if (!s.has("count")) {
        problems.add(s.node(), "missing required key \"count\" in spares");
      }
      count.filter(c -> c < 1 || c > SparePolicy.MAX_COUNT).ifPresent(c -> problems.add(s.at("count"),
          "\"count\" in spares must be 1 to " + SparePolicy.MAX_COUNT + ", not " + c));
      String taint = s.string("taint").orElse(SparePolicy.DEFAULT_TAINT);
      Optional<String> bad = FieldRule.QUALIFIED_NAME.check(taint);
      bad.ifPresent(e -> problems.add(s.at("taint"), "\"taint\" in spares: " + e));
      s.finish();
      return select.flatMap(sel -> count.filter(c -> c >= 1 && c <= SparePolicy.MAX_COUNT).filter(c -> bad.isEmpty())
          .map(c -> new SparePolicy(sel, c.intValue(), taint)));
    });
  }
}
