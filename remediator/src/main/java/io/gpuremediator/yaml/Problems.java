package io.gpuremediator.yaml;

import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.nodes.Node;

/** Collects every problem found in one file as {@code file:line: message}, in the order found. */
public final class Problems {
  private final String file;
  private final List<String> messages = new ArrayList<>();

  /** Creates an empty collector for the named file. */
  public Problems(String file) {
    this.file = file;
  }

  /** The file name every message is prefixed with. */
  public String file() {
    return file;
  }

  /** Records a problem at the line where {@code node} starts. */
  public void add(Node node, String message) {
    add(lineOf(node), message);
  }

  /** Records a problem at a 1-based line. */
  public void add(int line, String message) {
    messages.add(file + ":" + line + ": " + message);
  }

  /** Whether nothing was recorded. */
  public boolean isEmpty() {
    return messages.isEmpty();
  }

  /** Every recorded message, in order. */
  public List<String> messages() {
    return List.copyOf(messages);
  }

  /** The 1-based line a node starts on. */
  public static int lineOf(Node node) {
    return node.getStartMark() == null ? 1 : node.getStartMark().getLine() + 1;
  }
}
