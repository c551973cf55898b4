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
  /** GPU indices as nvidia-smi -i takes them: comma-separated numbers. */
  GPU_INDICES(255, "[0-9]{1,4}(,[0-9]{1,4})*", "comma-separated GPU indices (0 or 0,3)"),
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
    if (!matches(value)) {
      return Optional.of("\"" + abbreviate(value) + "\" is not " + description);
    }
    return Optional.empty();
  }

  /** The rule's pattern, checked by hand for the rules on the decision path (the regex is the definition). */
  private boolean matches(String v) {
    return switch (this) {
      case MESSAGE -> true;
      case LABEL_VALUE -> v.isEmpty() || (isAlnum(v.charAt(0)) && isAlnum(v.charAt(v.length() - 1)) && allOf(v, "-_."));
      case REASON -> !v.isEmpty() && isLetter(v.charAt(0)) && allOf(v, "_,:")
          && v.charAt(v.length() - 1) != ',' && v.charAt(v.length() - 1) != ':';
      case DNS_SUBDOMAIN -> isDnsSubdomain(v);
      default -> pattern.matcher(v).matches();
    };
  }

  private static boolean isDnsSubdomain(String v) {
    int labelStart = 0;
    for (int i = 0; i <= v.length(); i++) {
      if (i == v.length() || v.charAt(i) == '.') {
        if (i == labelStart || v.charAt(labelStart) == '-' || v.charAt(i - 1) == '-') {
          return false;
        }
        labelStart = i + 1;
      } else {
        char c = v.charAt(i);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean allOf(String v, String extra) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!isAlnum(c) && extra.indexOf(c) < 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isAlnum(char c) {
    return isLetter(c) || (c >= '0' && c <= '9');
  }

  /** Whether the rule's defining regex accepts {@code value}; tests hold the hand-written checks to it. */
  boolean matchesDefinition(String value) {
    return pattern.matcher(value).matches();
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
