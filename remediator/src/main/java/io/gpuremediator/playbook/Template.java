package io.gpuremediator.playbook;

import io.gpuremediator.yaml.MapReader.Parsed;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A string with {@code {{ variable }}} placeholders. The variables are a closed set, checked when the
 * playbook loads; a missing label or annotation renders as the empty string, and the rendered text is
 * then checked against the rules of the field it goes into.
 */
public record Template(String source, List<Part> parts) {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  /** Copies the parts. */
  public Template {
    parts = List.copyOf(parts);
  }

  /** A piece of a template. */
  public sealed interface Part {}

  /** Literal text. */
  public record Literal(String text) implements Part {}

  /** A variable; {@code name} is the label or annotation name for those kinds, else empty. */
  public record Variable(Kind kind, String name) implements Part {}

  /** The kinds of variable. */
  public enum Kind { LABEL, ANNOTATION, NODE, ALERTNAME, FINGERPRINT }

  /** A template that is just this text. */
  public static Template literal(String text) {
    return new Template(text, List.of(new Literal(text)));
  }

  /** Whether the template has no variables, so its value is known when the playbook loads. */
  public boolean isConstant() {
    return parts.stream().allMatch(p -> p instanceof Literal);
  }

  /** Parses a template. */
  public static Parsed<Template> parse(String source) {
    List<Part> parts = new ArrayList<>();
    int at = 0;
    while (at < source.length()) {
      int open = source.indexOf("{{", at);
      if (open < 0) {
        parts.add(new Literal(source.substring(at)));
        break;
      }
      if (open > at) {
        parts.add(new Literal(source.substring(at, open)));
      }
      int close = source.indexOf("}}", open + 2);
      if (close < 0) {
        return Parsed.error("template \"" + source + "\" has an unclosed {{");
      }
      Parsed<Variable> variable = variable(source.substring(open + 2, close).strip());
      if (variable.error() != null) {
        return Parsed.error(variable.error());
      }
      parts.add(variable.value());
      at = close + 2;
    }
    return Parsed.ok(new Template(source, parts));
  }

  private static Parsed<Variable> variable(String expr) {
    switch (expr) {
      case "node":
        return Parsed.ok(new Variable(Kind.NODE, ""));
      case "alertname":
        return Parsed.ok(new Variable(Kind.ALERTNAME, ""));
      case "fingerprint":
        return Parsed.ok(new Variable(Kind.FINGERPRINT, ""));
      default:
        break;
    }
    for (Kind kind : new Kind[] {Kind.LABEL, Kind.ANNOTATION}) {
      String prefix = kind == Kind.LABEL ? "labels." : "annotations.";
      if (expr.startsWith(prefix) && NAME.matcher(expr.substring(prefix.length())).matches()) {
        return Parsed.ok(new Variable(kind, expr.substring(prefix.length())));
      }
    }
    return Parsed.error("unknown template variable \"" + expr
        + "\" (known: labels.NAME, annotations.NAME, node, alertname, fingerprint)");
  }

  /** Renders the template. */
  public String render(TemplateContext ctx) {
    if (parts.size() == 1 && parts.get(0) instanceof Literal l) {
      return l.text();
    }
    StringBuilder b = new StringBuilder(source.length() + 16);
    for (int i = 0; i < parts.size(); i++) { // indexed: a webhook renders thousands, each iterator an allocation
      Part p = parts.get(i);
      if (p instanceof Literal l) {
        b.append(l.text());
      } else if (p instanceof Variable v) {
        b.append(switch (v.kind()) {
          case LABEL -> ctx.labels().getOrDefault(v.name(), "");
          case ANNOTATION -> ctx.annotations().getOrDefault(v.name(), "");
          case NODE -> ctx.node();
          case ALERTNAME -> ctx.alertname();
          case FINGERPRINT -> ctx.fingerprint();
        });
      }
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return source;
  }
}
