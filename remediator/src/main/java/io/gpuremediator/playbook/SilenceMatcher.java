package io.gpuremediator.playbook;

import io.gpuremediator.playbook.Matcher.Op;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One matcher of a silence step, as written: {@code node="{{ node }}"}. An equality's value may be a template; a
 * regex's is literal (a rendered label value must never become a regex).
 */
public record SilenceMatcher(String label, Op op, Template value) {
  /** Validates presence. */
  public SilenceMatcher {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(value, "value");
  }

  /** Whether this matcher lets an alert with {@code label=value} through (so a silence of it may mute that alert). */
  public boolean admits(String name, String actual) {
    if (!name.equals(label)) {
      return true;
    }
    if (!value.isConstant()) {
      return true; // a template renders to anything
    }
    String v = value.source();
    return switch (op) {
      case EQ -> actual.equals(v);
      case NE -> !actual.equals(v);
      case RE -> Pattern.compile("^(?:" + v + ")$").matcher(actual).matches();
      case NRE -> !Pattern.compile("^(?:" + v + ")$").matcher(actual).matches();
    };
  }

  @Override
  public String toString() {
    return label + op.text() + "\"" + value.source() + "\"";
  }
}
