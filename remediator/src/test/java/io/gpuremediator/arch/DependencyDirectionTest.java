package io.gpuremediator.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Dependencies point inward: the model packages know nothing of Vert.x or fabric8, only {@code kube}
 * imports the fabric8 client, and only the listed packages touch Vert.x or Prometheus.
 */
class DependencyDirectionTest {
  private static final Path SRC = Path.of("src/main/java/io/gpuremediator");
  private static final List<String> PURE = List.of("yaml", "value", "node", "state", "decision", "alert", "playbook",
      "playbook/load", "action", "config", "engine");
  private static final Map<String, List<String>> ALLOWED = Map.of(
      "io.fabric8.", List.of("kube", "service", "cli"),
      "io.vertx.", List.of("webhook", "http", "service"),
      "io.prometheus.", List.of("metrics", "http", "service"));

  @Test
  void importsFollowThePackageRules() throws IOException {
    List<String> violations = new ArrayList<>();
    try (Stream<Path> files = Files.walk(SRC)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String pkg = SRC.relativize(f.getParent()).toString();
        for (String line : Files.readAllLines(f)) {
          if (!line.startsWith("import ")) {
            continue;
          }
          String imported = line.substring(7).replace("static ", "");
          for (Map.Entry<String, List<String>> rule : ALLOWED.entrySet()) {
            if (imported.startsWith(rule.getKey()) && !rule.getValue().contains(pkg)) {
              violations.add(f + ": " + line);
            }
          }
          if (PURE.contains(pkg) && (imported.startsWith("io.gpuremediator.kube") || imported.startsWith("io.gpuremediator.http")
              || imported.startsWith("io.gpuremediator.webhook") || imported.startsWith("io.gpuremediator.service")
              || imported.startsWith("io.gpuremediator.cli"))) {
            violations.add(f + ": " + line);
          }
        }
      }
    }
    assertThat(violations).isEmpty();
  }

  @Test
  void everyPackageSaysWhatItIsFor() throws IOException {
    try (Stream<Path> dirs = Files.walk(SRC)) {
      assertThat(dirs.filter(Files::isDirectory).filter(d -> {
        try (Stream<Path> files = Files.list(d)) {
          return files.anyMatch(f -> f.toString().endsWith(".java"));
        } catch (IOException e) {
          return true;
        }
      }).filter(d -> !Files.exists(d.resolve("package-info.java"))).toList()).isEmpty();
    }
  }
}
