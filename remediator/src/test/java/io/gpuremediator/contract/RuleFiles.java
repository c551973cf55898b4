package io.gpuremediator.contract;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.Yaml;

/** The Prometheus rule files of a folder ({@code *.rules.yml}), parsed: the series they record and their alerts. */
final class RuleFiles {
  /** Recorded series (name to expression) and alert rules (name to the rule as YAML). */
  record Rules(Map<String, String> records, Map<String, Map<String, Object>> alerts) {}

  private RuleFiles() {}

  /** Reads every rule file of {@code dirs}; an alert defined twice is an error. */
  @SuppressWarnings("unchecked")
  static Rules read(Path... dirs) throws IOException {
    Map<String, String> records = new LinkedHashMap<>();
    Map<String, Map<String, Object>> alerts = new LinkedHashMap<>();
    for (Path dir : dirs) {
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".rules.yml")).sorted().toList()) {
          Map<String, Object> doc = new Yaml().load(Files.readString(f));
          for (Map<String, Object> group : (List<Map<String, Object>>) doc.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
              if (rule.containsKey("record")) {
                records.put((String) rule.get("record"), (String) rule.get("expr"));
              }
              if (rule.containsKey("alert") && alerts.put((String) rule.get("alert"), rule) != null) {
                throw new IllegalStateException("alert defined twice: " + rule.get("alert") + " (" + f + ")");
              }
            }
          }
        }
      }
    }
    return new Rules(records, alerts);
  }
}
