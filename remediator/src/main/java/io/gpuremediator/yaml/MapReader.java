package io.gpuremediator.yaml;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads one YAML mapping strictly: each key is taken at most once by the caller, and {@link #finish()}
 * reports every key nobody took as unknown. Type errors are recorded, never thrown.
 */
public final class MapReader {
  private final Node node;
  private final String context;
  private final Problems problems;
  private final Map<String, NodeTuple> entries = new LinkedHashMap<>();
  private final List<String> taken = new ArrayList<>();

  private MapReader(Node node, String context, Problems problems) {
    this.node = node;
    this.context = context;
    this.problems = problems;
    if (node instanceof MappingNode mapping) {
      for (NodeTuple tuple : mapping.getValue()) {
        if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
          problems.add(tuple.getKeyNode(), "keys in " + context + " must be plain strings");
        } else if (entries.putIfAbsent(key.getValue(), tuple) != null) {
          problems.add(key, "duplicate key \"" + key.getValue() + "\" in " + context);
        }
      }
    }
  }

  /** Starts reading {@code node} as the mapping named {@code context}; empty (and a problem) when it is not one. */
  public static Optional<MapReader> of(Node node, String context, Problems problems) {
    if (!(node instanceof MappingNode)) {
      problems.add(node, context + " must be a mapping");
      return Optional.empty();
    }
    return Optional.of(new MapReader(node, context, problems));
  }

  /** The mapping node itself, for positions. */
  public Node node() {
    return node;
  }

  /** The problems collector this reader records into. */
  public Problems problems() {
    return problems;
  }

  /** The keys present, in file order. */
  public List<String> keys() {
    return List.copyOf(entries.keySet());
  }

  /** Takes a key's value node, if present. A present key that is explicitly null counts as absent. */
  public Optional<Node> take(String key) {
    taken.add(key);
    NodeTuple tuple = entries.get(key);
    if (tuple == null || isNull(tuple.getValueNode())) {
      return Optional.empty();
    }
    return Optional.of(tuple.getValueNode());
  }

  /** The node of a present key (for error positions), or the mapping itself. */
  public Node at(String key) {
    NodeTuple tuple = entries.get(key);
    return tuple == null ? node : tuple.getValueNode();
  }

  /** Takes an optional string scalar. */
  public Optional<String> string(String key) {
    return take(key).flatMap(n -> scalar(n, key));
  }

  /** Takes a required string scalar; records a problem when it is missing. */
  public Optional<String> requiredString(String key) {
    if (!has(key)) {
      problems.add(node, "missing required key \"" + key + "\" in " + context);
      return Optional.empty();
    }
    return string(key);
  }

  /** Takes an optional boolean ({@code true} or {@code false}). */
  public Optional<Boolean> bool(String key) {
    return take(key).flatMap(n -> scalar(n, key)).flatMap(value -> {
      if (value.equals("true") || value.equals("false")) {
        return Optional.of(Boolean.parseBoolean(value));
      }
      problems.add(at(key), "\"" + key + "\" in " + context + " must be true or false, not \"" + value + "\"");
      return Optional.empty();
    });
  }

  /** Takes an optional non-negative integer. */
  public Optional<Long> count(String key) {
    return take(key).flatMap(n -> scalar(n, key)).flatMap(value -> {
      try {
        long parsed = Long.parseLong(value);
        if (parsed >= 0) {
          return Optional.of(parsed);
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      problems.add(at(key), "\"" + key + "\" in " + context + " must be a non-negative integer, not \"" + value + "\"");
      return Optional.empty();
    });
  }

  /** Takes an optional scalar and converts it; the converter returns an error message on the left. */
  public <T> Optional<T> parsed(String key, Function<String, Parsed<T>> parser) {
    return take(key).flatMap(n -> scalar(n, key)).flatMap(value -> {
      Parsed<T> result = parser.apply(value);
      if (result.error() != null) {
        problems.add(at(key), "\"" + key + "\" in " + context + ": " + result.error());
        return Optional.empty();
      }
      return Optional.of(result.value());
    });
  }

  /** Takes an optional sequence; its items are returned as nodes. */
  public Optional<List<Node>> list(String key) {
    return take(key).flatMap(n -> {
      if (n instanceof SequenceNode seq) {
        return Optional.of(seq.getValue());
      }
      problems.add(n, "\"" + key + "\" in " + context + " must be a list");
      return Optional.empty();
    });
  }

  /** Takes an optional nested mapping. */
  public Optional<MapReader> map(String key, String nestedContext) {
    return take(key).flatMap(n -> of(n, nestedContext, problems));
  }

  /** Whether a key is present with a non-null value. */
  public boolean has(String key) {
    NodeTuple tuple = entries.get(key);
    return tuple != null && !isNull(tuple.getValueNode());
  }

  /** Records every key that was never taken as unknown. */
  public void finish() {
    for (Map.Entry<String, NodeTuple> e : entries.entrySet()) {
      if (!taken.contains(e.getKey())) {
        problems.add(e.getValue().getKeyNode(), "unknown key \"" + e.getKey() + "\" in " + context);
      }
    }
  }

  /** A scalar's text, or a problem when the node is not a scalar. */
  public Optional<String> scalar(Node n, String key) {
    if (n instanceof ScalarNode s) {
      return Optional.of(s.getValue());
    }
    problems.add(n, "\"" + key + "\" in " + context + " must be a single value");
    return Optional.empty();
  }

  private static boolean isNull(Node n) {
    return n instanceof ScalarNode s && "tag:yaml.org,2002:null".equals(s.getTag().getValue());
  }

  /** The result of converting a scalar: a value, or an error message. */
  public record Parsed<T>(T value, String error) {
    /** A successful conversion. */
    public static <T> Parsed<T> ok(T value) {
      return new Parsed<>(value, null);
    }

    /** A failed conversion with the message to report. */
    public static <T> Parsed<T> error(String message) {
      return new Parsed<>(null, message);
    }
  }
}
