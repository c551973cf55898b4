package io.gpuremediator.config;

import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Decodes {@code defer_to}: a list of signs that another system owns a node's repair, each exactly one of
 * {@code condition: {type, status}}, {@code taint: {key}}, {@code label: {key, value}}.
 */
final class DeferToDecoder {
  private static final String ITEM = "defer_to item";

  private DeferToDecoder() {}

  static List<DeferRule> deferTo(MapReader config, Problems problems) {
    List<DeferRule> out = new ArrayList<>();
    config.list("defer_to").ifPresent(items -> {
      for (Node item : items) {
        MapReader.of(item, ITEM, problems).ifPresent(d -> {
          List<String> forms = d.keys().stream().filter(k -> List.of("condition", "taint", "label").contains(k)).toList();
          if (forms.size() != 1) {
            problems.add(d.node(), ITEM + ": give exactly one of condition: {type, status}, taint: {key}, label: {key, value}");
          }
          Optional<DeferRule> condition = d.map("condition", ITEM + "'s condition").flatMap(c -> {
            Optional<String> type = c.requiredString("type").filter(t -> qualified(c, "type", t));
            Optional<String> status = c.requiredString("status");
            c.finish();
            return type.flatMap(t -> status.<DeferRule>map(s -> new DeferRule.Condition(t, s)));
          });
          Optional<DeferRule> taint = d.map("taint", ITEM + "'s taint").flatMap(t -> {
            Optional<String> key = t.requiredString("key").filter(k -> qualified(t, "key", k));
            t.finish();
            return key.<DeferRule>map(DeferRule.Taint::new);
          });
          Optional<DeferRule> label = d.map("label", ITEM + "'s label").flatMap(l -> {
            Optional<String> key = l.requiredString("key").filter(k -> qualified(l, "key", k));
            Optional<String> value = l.requiredString("value");
            l.finish();
            return key.flatMap(k -> value.<DeferRule>map(v -> new DeferRule.Label(k, v)));
          });
          Optional<DeferRule> rule = condition.or(() -> taint).or(() -> label);
          d.finish();
          if (forms.size() == 1) {
            rule.ifPresent(out::add);
          }
        });
      }
    });
    return out;
  }

  private static boolean qualified(MapReader m, String key, String value) {
    Optional<String> bad = FieldRule.QUALIFIED_NAME.check(value);
    bad.ifPresent(e -> m.problems().add(m.at(key), "\"" + key + "\" in " + ITEM + ": " + e));
    return bad.isEmpty();
  }
}
