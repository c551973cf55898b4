package io.gpuremediator.node;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The Kubernetes API server's validation rules for the fields our actions write. A rendered template
 * value is checked against its field's rule before anything is sent; nothing is passed through.
 */
public enum FieldRule {
  /** RFC 1123 subdomain: object names such as node names. */
  DNS_SUBDOMAIN(253, "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
      "a lowercase RFC 1123 subdomain (a-z, 0-9, '-', '.')"),
  /** A label or taint key: an optional DNS-subdomain prefix and a name of at most 63 characters. */
  QUALIFIED_NAME(316, "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]",
      "a qualified name (optional DNS prefix and '/', then at most 63 of A-Z, a-z, 0-9, '-', '_', '.')"),
  /** A label value (also a taint value): empty, or at most 63 alphanumerics with '-', '_', '.' inside. */
  LABEL_VALUE(63, "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?",
      "a label value (at most 63 of A-Z, a-z, 0-9, '-', '_', '.', starting and ending alphanumeric)"),
  /** A condition or event reason: CamelCase, as metav1.Condition requires. */
  REASON(128, "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?",
      "a CamelCase reason (a letter, then letters, digits, '_', ',', ':')"),
  /** A free-text message (event note, condition message, annotation value): length only. */
  MESSAGE(1024, "(?s).*", "at most 1024 characters");

  private final int maxLength;
  private final Pattern pattern;
  private final String description;

  FieldRule(int maxLength, String regex, String description) {
    this.maxLength = maxLength;
    this.pattern = Pattern.compile(regex);
    this.description = description;
  }

  /** The longest value the field accepts. */
  public int maxLength() {
    return maxLength;
  }

  /** Why {@code value} is not acceptable for this field, or empty when it is. */
  public Optional<String> check(String value) {
    if (value.length() > maxLength) {
      return Optional.of("\"" + abbreviate(value) + "\" is longer than " + maxLength + " characters");
    }
    if (!pattern.matcher(value).matches()) {
      return Optional.of("\"" + abbreviate(value) + "\" is not " + description);
    }
    return Optional.empty();
  }

  /** Whether {@code value} is acceptable for this field. */
  public boolean accepts(String value) {
    return check(value).isEmpty();
  }

  private static String abbreviate(String value) {
    String shown = value.length() > 80 ? value.substring(0, 80) + "..." : value;
    StringBuilder b = new StringBuilder();
    shown.codePoints().forEach(c -> {
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
        b.append(String.format("\\u%04x", c));
      } else {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }
}
