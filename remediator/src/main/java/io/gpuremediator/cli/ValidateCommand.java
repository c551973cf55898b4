package io.gpuremediator.cli;

import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.playbook.load.LoadResult;
import io.gpuremediator.playbook.load.PlaybookFile;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.playbook.load.PlaybookSources;
import io.gpuremediator.safety.BudgetWarnings;
import io.gpuremediator.service.OutboundReadiness;
import io.gpuremediator.yaml.Problems;
import io.gpuremediator.yaml.YamlFile;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * {@code validate PATH...}: one {@code SUCCESS: file} or {@code FAILED: file} line per file, then every
 * error as {@code file:line: message}. A file whose {@code playbooks:} is a list of mappings is a
 * playbook file (a config's is a list of paths); anything else is a service config. Playbook names must be unique across
 * all playbook files given together, as they are when the service loads them.
 */
final class ValidateCommand {
  private ValidateCommand() {}

  static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.isEmpty()) {
      err.println("remediator validate: give at least one file or directory");
      return 2;
    }
    List<Path> files;
    try {
      files = PlaybookSources.expand(args.stream().map(Path::of).toList());
    } catch (IOException e) {
      err.println("remediator validate: " + e.getMessage());
      return 1;
    }
    if (files.isEmpty()) {
      err.println("remediator validate: no .yaml or .yml files in " + args);
      return 1;
    }
    List<Path> playbookFiles = new ArrayList<>();
    Map<Path, List<String>> errors = new LinkedHashMap<>();
    Map<Path, RemediatorConfig> configs = new LinkedHashMap<>();
    files.forEach(f -> errors.put(f, List.of()));
    for (Path file : files) {
      if (isPlaybookFile(file)) {
        playbookFiles.add(file);
      } else if (Files.exists(file)) {
        ConfigLoader.Result config = ConfigLoader.load(file);
        errors.put(file, config.errors());
        config.config().ifPresent(c -> configs.put(file, c));
      } else {
        errors.put(file, List.of(file + ":1: no such file"));
      }
    }
    LoadResult playbooks = PlaybookLoader.load(playbookFiles);
    for (PlaybookFile f : playbooks.files()) {
      errors.put(f.path(), f.errors());
    }
    if (!playbookFiles.isEmpty() && playbooks.isValid()) {
      configs.forEach((file, config) -> {
        List<String> all = new ArrayList<>(errors.get(file));
        all.addAll(OutboundReadiness.errors(config, playbooks.set()));
        errors.put(file, all);
      });
    }
    errors.forEach((file, list) -> out.println((list.isEmpty() ? "SUCCESS: " : "FAILED: ") + file));
    errors.values().forEach(list -> list.forEach(out::println));
    if (!playbookFiles.isEmpty() && playbooks.isValid()) {
      configs.forEach((file, config) -> OutboundReadiness.warnings(config, playbooks.set())
          .forEach(w -> out.println("WARNING: " + file + ": " + w)));
    }
    configs.forEach((file, config) -> BudgetWarnings.offline(config.safety().limits().maxUnavailable(), config.safety().maxDraining())
        .forEach(w -> out.println("WARNING: " + file + ": " + w)));
    configs.forEach((file, config) -> config.warnings().forEach(w -> out.println("WARNING: " + file + ": " + w)));
    return errors.values().stream().allMatch(List::isEmpty) ? 0 : 1;
  }

  private static boolean isPlaybookFile(Path file) {
    if (!Files.isRegularFile(file)) {
      return false;
    }
    Node root = YamlFile.read(file, new Problems(file.toString())).orElse(null);
    return root instanceof MappingNode map && map.getValue().stream().anyMatch(t ->
        t.getKeyNode() instanceof ScalarNode key && key.getValue().equals("playbooks")
            && t.getValueNode() instanceof SequenceNode seq && !seq.getValue().isEmpty()
            && seq.getValue().stream().allMatch(n -> n instanceof MappingNode));
  }
}
