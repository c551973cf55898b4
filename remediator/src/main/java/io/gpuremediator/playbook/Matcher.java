package io.gpuremediator.playbook;

import io.gpuremediator.yaml.MapReader.Parsed;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One Alertmanager label matcher: {@code name="value"}, {@code name!="value"}, {@code name=~"regex"}
 * or {@code name!~"regex"}. Regexes are anchored at both ends, as in Alertmanager; a missing label
 * matches as the empty string. The name may be quoted, as Alertmanager 0.28 and later write any UTF-8 label name
 * ({@code "k8s.cluster.name"="prod-a"}); a classic name may be written either way.
 */
public record Matcher(String label, Op op, String value, Pattern pattern) {
  private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  /** A Kubernetes label key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
  private static final Pattern NODE_LABEL = Pattern.compile(
      "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

  /** The four matcher operators. */
  public enum Op {
    /** Equal. */
    EQ("="),
    /** Not equal. */
    NE("!="),
    /** Matches the anchored regex. */
    RE("=~"),
    /** Does not match the anchored regex. */
    NRE("!~");

    private final String text;

    Op(String text) {
      this.text = text;
    }

    /** The operator as written. */
    public String text() {
      return text;
    }
  }

  /** Whether an alert with these labels satisfies the matcher. */
  public boolean matches(Map<String, String> labels) {
    String actual = labels.getOrDefault(label, "");
    return switch (op) {
      case EQ -> actual.equals(value);
      case NE -> !actual.equals(value);
      case RE -> pattern.matcher(actual).matches();
      case NRE -> !pattern.matcher(actual).matches();
    };
  }

  /** Parses one matcher in Alertmanager syntax; the value may be double-quoted (with escapes) or bare. */
  public static Parsed<Matcher> parse(String text) {
    return parse(text, LABEL, "a label name");
  }

  /**
   * Parses one matcher over a Kubernetes object's labels ({@code karpenter.sh/nodepool="training"}): the same syntax,
   * with a Kubernetes label key (a prefix, dots, dashes and a slash allowed) in place of a Prometheus label name.
   */
  public static Parsed<Matcher> parseNodeLabel(String text) {
    return parse(text, NODE_LABEL, "a Kubernetes label key");
  }

  private static Parsed<Matcher> parse(String text, Pattern labelRule, String what) {
    String s = text.strip();
    String label;
    String rest;
    if (s.startsWith("\"") && labelRule == LABEL) {
      int end = closingQuote(s);
      Parsed<String> name = end < 0 ? Parsed.error("unterminated quoted label name") : unquote(s.substring(0, end + 1));
      if (name.error() != null) {
        return Parsed.error("matcher \"" + text + "\": " + name.error());
      }
      if (name.value().isEmpty()) {
        return Parsed.error("matcher \"" + text + "\" has an empty label name");
      }
      label = name.value();
      rest = s.substring(end + 1).stripLeading();
    } else {
      int i = 0;
      while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || "_./-".indexOf(s.charAt(i)) >= 0)) {
        i++;
      }
      label = s.substring(0, i);
      if (!labelRule.matcher(label).matches()) {
        return Parsed.error("matcher \"" + text + "\" does not start with " + what
            + (labelRule == LABEL ? " (quote any other name: \"k8s.cluster.name\"=\"prod-a\")" : ""));
      }
      rest = s.substring(i).stripLeading();
    }
    Op op = null;
    for (Op candidate : new Op[] {Op.NE, Op.NRE, Op.RE, Op.EQ}) {
      if (rest.startsWith(candidate.text())) {
        op = candidate;
        break;
      }
    }
    if (op == null) {
      return Parsed.error("matcher \"" + text + "\" has no operator (=, !=, =~, !~)");
    }
    Parsed<String> value = unquote(rest.substring(op.text().length()).strip());
    if (value.error() != null) {
      return Parsed.error("matcher \"" + text + "\": " + value.error());
    }
    Pattern pattern = null;
    if (op == Op.RE || op == Op.NRE) {
      try {
        pattern = Pattern.compile("^(?:" + value.value() + ")$");
      } catch (PatternSyntaxException e) {
        return Parsed.error("matcher \"" + text + "\": invalid regex: " + e.getDescription());
      }
    }
    return Parsed.ok(new Matcher(label, op, value.value(), pattern));
  }

  /** The index of the quote that closes the quoted text {@code s} starts with, or -1. */
  private static int closingQuote(String s) {
    for (int i = 1; i < s.length(); i++) {
      if (s.charAt(i) == '\\') {
        i++;
      } else if (s.charAt(i) == '"') {
        return i;
      }
    }
    return -1;
  }

  private static Parsed<String> unquote(String raw) {
    if (!raw.startsWith("\"")) {
      if (raw.contains("\"") || raw.contains(" ")) {
        return Parsed.error("an unquoted value cannot contain quotes or spaces");
      }
      return Parsed.ok(raw);
    }
    StringBuilder b = new StringBuilder();
    for (int i = 1; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '\\' && i + 1 < raw.length()) {
        char next = raw.charAt(++i);
        b.append(switch (next) {
          case 'n' -> '\n';
          case 't' -> '\t';
          default -> next;
        });
      } else if (c == '"') {
        if (i != raw.length() - 1) {
          return Parsed.error("text after the closing quote");
        }
        return Parsed.ok(b.toString());
      } else {
        b.append(c);
      }
    }
    return Parsed.error("unterminated quoted value");
  }

  @Override
  public String toString() {
    return (LABEL.matcher(label).matches() ? label : quote(label)) + op.text() + quote(value);
  }

  private static String quote(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
