package io.gpuremediator.config;

import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Decodes {@code defer_to}: a list of signs that another system owns a node's repair, each exactly one of
 * {@code condition: {type, status}}, {@code taint: {key}}, {@code label: {key, value}}, and optionally
 * {@code deadline: DURATION} with {@code then: take_over | page} (both or neither).
 */
final class DeferToDecoder {
  private static final String ITEM = "defer_to item";
  /** The shortest deadline: a repairer is given at least the loop's longest interval. */
  private static final Duration MIN_DEADLINE = Duration.ofMinutes(1);

  private DeferToDecoder() {}

  static List<DeferRule> deferTo(MapReader config, Problems problems) {
    List<DeferRule> out = new ArrayList<>();
    config.list("defer_to").ifPresent(items -> {
      for (Node item : items) {
        MapReader.of(item, ITEM, problems).ifPresent(d -> item(d).ifPresent(out::add));
      }
    });
    return out;
  }

  private static Optional<DeferRule> item(MapReader d) {
    List<String> forms = d.keys().stream().filter(k -> List.of("condition", "taint", "label").contains(k)).toList();
    if (forms.size() != 1) {
      d.problems().add(d.node(), ITEM + ": give exactly one of condition: {type, status}, taint: {key}, label: {key, value}");
    }
    Optional<String[]> condition = d.map("condition", ITEM + "'s condition").flatMap(c -> {
      Optional<String> type = c.requiredString("type").filter(t -> qualified(c, "type", t));
      Optional<String> status = c.requiredString("status");
      c.finish();
      return type.flatMap(t -> status.map(s -> new String[] {t, s}));
    });
    Optional<String> taint = d.map("taint", ITEM + "'s taint").flatMap(t -> {
      Optional<String> key = t.requiredString("key").filter(k -> qualified(t, "key", k));
      t.finish();
      return key;
    });
    Optional<String[]> label = d.map("label", ITEM + "'s label").flatMap(l -> {
      Optional<String> key = l.requiredString("key").filter(k -> qualified(l, "key", k));
      Optional<String> value = l.requiredString("value");
      l.finish();
      return key.flatMap(k -> value.map(v -> new String[] {k, v}));
    });
    Optional<Optional<DeferRule.Deadline>> deadline = deadline(d);
    d.finish();
    if (forms.size() != 1 || deadline.isEmpty()) {
      return Optional.empty();
    }
    Optional<DeferRule.Deadline> after = deadline.get();
    return condition.<DeferRule>map(c -> new DeferRule.Condition(c[0], c[1], after))
        .or(() -> taint.map(k -> new DeferRule.Taint(k, after)))
        .or(() -> label.map(l -> new DeferRule.Label(l[0], l[1], after)));
  }

  /** The item's deadline: empty when it is invalid, an empty deadline when it gives none. */
  private static Optional<Optional<DeferRule.Deadline>> deadline(MapReader d) {
    boolean hasDeadline = d.has("deadline");
    boolean hasThen = d.has("then");
    Optional<Duration> after = d.parsed("deadline", Durations::parse);
    Optional<String> then = d.string("then");
    if (hasDeadline != hasThen) {
      d.problems().add(d.at(hasDeadline ? "deadline" : "then"), ITEM + ": \"deadline\" and \"then\" go together (then:"
          + " take_over | page, after the deadline)");
      return Optional.empty();
    }
    if (!hasDeadline) {
      return Optional.of(Optional.empty());
    }
    Optional<DeferRule.Then> how = then.flatMap(DeferRule.Then::of);
    if (then.isPresent() && how.isEmpty()) {
      d.problems().add(d.at("then"), "\"then\" in " + ITEM + " must be take_over or page, not \"" + then.get() + "\"");
    }
    if (after.isPresent() && after.get().compareTo(MIN_DEADLINE) < 0) {
      d.problems().add(d.at("deadline"), "\"deadline\" in " + ITEM + " must be at least " + Durations.format(MIN_DEADLINE));
      return Optional.empty();
    }
    return after.flatMap(a -> how.map(h -> Optional.of(new DeferRule.Deadline(a, h))));
  }

  private static boolean qualified(MapReader m, String key, String value) {
    Optional<String> bad = FieldRule.QUALIFIED_NAME.check(value);
    bad.ifPresent(e -> m.problems().add(m.at(key), "\"" + key + "\" in " + ITEM + ": " + e));
    return bad.isEmpty();
  }
}
