package io.gpuremediator.node;

import java.util.Objects;

/** A node taint. {@code value} is empty when the taint has none. */
public record Taint(String key, String value, TaintEffect effect) {
  /** Validates presence. */
  public Taint {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(effect, "effect");
  }

  /** Whether this taint has the given key and effect. */
  public boolean is(String otherKey, TaintEffect otherEffect) {
    return key.equals(otherKey) && effect == otherEffect;
  }

  @Override
  public String toString() {
    return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect.apiName();
  }
}
