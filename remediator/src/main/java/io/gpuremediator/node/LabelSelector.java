package io.gpuremediator.node;

import io.gpuremediator.yaml.MapReader.Parsed;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An equality-based Kubernetes label selector ({@code k=v}, {@code k==v}, {@code k!=v}, {@code k},
 * {@code !k}, comma-separated, all must hold), evaluated locally against a node's labels.
 */
public record LabelSelector(String text, List<Requirement> requirements) {
  /** Makes a defensive copy. */
  public LabelSelector {
    Objects.requireNonNull(text, "text");
    requirements = List.copyOf(requirements);
  }

  /** One requirement of a selector. */
  public record Requirement(String key, Op op, String value) {}

  /** The operators supported. */
  public enum Op { EQUALS, NOT_EQUALS, EXISTS, NOT_EXISTS }

  /** Parses a selector; an empty string selects every node. */
  public static Parsed<LabelSelector> parse(String text) {
    List<Requirement> reqs = new ArrayList<>();
    if (!text.isBlank()) {
      for (String raw : text.split(",", -1)) {
        String part = raw.strip();
        Requirement r = parseOne(part);
        if (r == null) {
          return Parsed.error("\"" + part + "\" is not a label selector requirement (key=value, key!=value, key or !key)");
        }
        reqs.add(r);
      }
    }
    return Parsed.ok(new LabelSelector(text.strip(), reqs));
  }

  private static Requirement parseOne(String part) {
    Requirement r;
    int ne = part.indexOf("!=");
    int eq = part.indexOf('=');
    if (ne > 0) {
      r = new Requirement(part.substring(0, ne).strip(), Op.NOT_EQUALS, part.substring(ne + 2).strip());
    } else if (eq > 0) {
      int valueStart = part.startsWith("==", eq) ? eq + 2 : eq + 1;
      r = new Requirement(part.substring(0, eq).strip(), Op.EQUALS, part.substring(valueStart).strip());
    } else if (part.startsWith("!")) {
      r = new Requirement(part.substring(1).strip(), Op.NOT_EXISTS, "");
    } else {
      r = new Requirement(part, Op.EXISTS, "");
    }
    boolean valid = FieldRule.QUALIFIED_NAME.accepts(r.key()) && FieldRule.LABEL_VALUE.accepts(r.value());
    return valid ? r : null;
  }

  /** Whether a node with these labels is selected. */
  public boolean matches(Map<String, String> labels) {
    for (Requirement r : requirements) {
      String actual = labels.get(r.key());
      boolean ok = switch (r.op()) {
        case EQUALS -> r.value().equals(actual);
        case NOT_EQUALS -> !r.value().equals(actual);
        case EXISTS -> actual != null;
        case NOT_EXISTS -> actual == null;
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return text;
  }
}
