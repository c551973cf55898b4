package io.gpuremediator.signals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The rules of some rule files one at a time, in the order a replay needs. Prometheus and vmalert evaluate every group
 * at each interval, and each rule of a group after the one before it, so a rule reads the latest sample of any
 * record. vmalert's replay evaluates one rule over the whole range before the next: a rule must come after the rules
 * whose records it reads (a group after the groups it reads; where two groups read each other, in their files'
 * order), and a record that reads its own past must be replayed one evaluation at a time.
 */
final class ReplayOrder {
  private ReplayOrder() {}

  /** One rule as a group of its own (the group's name and settings kept), and whether it reads its own record. */
  record Unit(Map<String, Object> group, boolean readsItself) {
    /** Writes the unit as a rule file. */
    void write(Path file) throws IOException {
      DumperOptions options = new DumperOptions();
      options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
      Files.writeString(file, new Yaml(options).dump(Map.of("groups", List.of(group))));
    }
  }

  @SuppressWarnings("unchecked")
  static List<Unit> units(List<Path> ruleFiles) throws IOException {
    List<Map<String, Object>> groups = new ArrayList<>();
    for (Path f : ruleFiles) {
      Map<String, Object> doc = new Yaml().load(Files.readString(f));
      groups.addAll((List<Map<String, Object>>) doc.get("groups"));
    }
    Map<Map<String, Object>, List<Pattern>> records = new LinkedHashMap<>();
    for (Map<String, Object> g : groups) {
      List<Pattern> names = new ArrayList<>();
      for (Map<String, Object> r : rules(g)) {
        if (r.containsKey("record")) {
          names.add(name((String) r.get("record")));
        }
      }
      records.put(g, names);
    }
    List<Unit> out = new ArrayList<>();
    List<Map<String, Object>> left = new ArrayList<>(groups);
    while (!left.isEmpty()) {
      // The first group reading no other group left; else the first whose every such group reads it back (a cycle).
      Map<String, Object> next = left.stream().filter(g -> left.stream().noneMatch(h -> h != g && reads(g, records.get(h))))
          .findFirst().orElseGet(() -> left.stream().filter(g -> left.stream()
              .allMatch(h -> h == g || !reads(g, records.get(h)) || reaches(h, g, left, records, new ArrayList<>())))
              .findFirst().orElse(left.get(0)));
      left.remove(next);
      for (Map<String, Object> rule : rules(next)) {
        Map<String, Object> single = new LinkedHashMap<>(next);
        single.put("rules", List.of(rule));
        boolean itself = rule.containsKey("record") && name((String) rule.get("record")).matcher((String) rule.get("expr")).find();
        out.add(new Unit(single, itself));
      }
    }
    return out;
  }

  /** Whether {@code from} reads {@code to}'s records, directly or through other groups of {@code groups}. */
  private static boolean reaches(Map<String, Object> from, Map<String, Object> to, List<Map<String, Object>> groups,
      Map<Map<String, Object>, List<Pattern>> records, List<Map<String, Object>> seen) {
    if (reads(from, records.get(to))) {
      return true;
    }
    seen.add(from);
    for (Map<String, Object> via : groups) {
      if (!seen.contains(via) && via != to && reads(from, records.get(via)) && reaches(via, to, groups, records, seen)) {
        return true;
      }
    }
    return false;
  }

  private static Pattern name(String metric) {
    return Pattern.compile("(?<![a-zA-Z0-9_:])" + Pattern.quote(metric) + "(?![a-zA-Z0-9_:])");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> rules(Map<String, Object> group) {
    return (List<Map<String, Object>>) group.get("rules");
  }

  private static boolean reads(Map<String, Object> group, List<Pattern> records) {
    for (Map<String, Object> r : rules(group)) {
      for (Pattern p : records) {
        if (p.matcher((String) r.get("expr")).find()) {
          return true;
        }
      }
    }
    return false;
  }
}
