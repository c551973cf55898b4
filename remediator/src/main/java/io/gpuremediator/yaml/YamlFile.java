package io.gpuremediator.yaml;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;

/** Parses a YAML document into a node tree, turning syntax errors into {@code file:line} problems. */
public final class YamlFile {
  /** Files larger than this are refused: configs and playbooks are small, and YAML bombs are not. */
  public static final int MAX_BYTES = 1 << 20;

  private YamlFile() {}

  /** Reads and composes a file; empty when it could not be read or parsed (the reason is in problems). */
  public static Optional<Node> read(Path path, Problems problems) {
    String text;
    try {
      if (Files.size(path) > MAX_BYTES) {
        problems.add(1, "file is larger than " + MAX_BYTES + " bytes");
        return Optional.empty();
      }
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException | UncheckedIOException e) {
      problems.add(1, "cannot read file: " + e.getMessage());
      return Optional.empty();
    }
    return parse(text, problems);
  }

  /** Composes YAML text; empty when it is not one well-formed document. */
  public static Optional<Node> parse(String text, Problems problems) {
    LoaderOptions options = new LoaderOptions();
    options.setAllowRecursiveKeys(false);
    options.setMaxAliasesForCollections(10);
    options.setCodePointLimit(MAX_BYTES);
    options.setNestingDepthLimit(32);
    try {
      Node node = new Yaml(options).compose(new StringReader(text));
      if (node == null) {
        problems.add(1, "file is empty");
        return Optional.empty();
      }
      return Optional.of(node);
    } catch (MarkedYAMLException e) {
      int line = e.getProblemMark() == null ? 1 : e.getProblemMark().getLine() + 1;
      problems.add(line, "YAML syntax error: " + e.getProblem());
      return Optional.empty();
    } catch (YAMLException e) {
      problems.add(1, "YAML error: " + e.getMessage());
      return Optional.empty();
    }
  }
}
