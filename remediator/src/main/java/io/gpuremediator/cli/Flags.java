package io.gpuremediator.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** {@code --name VALUE} flags of a command; anything else is a usage error. */
final class Flags {
  private final Map<String, String> values = new HashMap<>();

  private Flags() {}

  /** Parses the flags; throws with a message naming the problem. */
  static Flags parse(List<String> args, Set<String> allowed) {
    Flags flags = new Flags();
    for (int i = 0; i < args.size(); i++) {
      String name = args.get(i);
      if (!allowed.contains(name)) {
        throw new IllegalArgumentException("unknown argument \"" + name + "\"");
      }
      if (i + 1 >= args.size()) {
        throw new IllegalArgumentException(name + " needs a value");
      }
      flags.values.put(name, args.get(++i));
    }
    return flags;
  }

  Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }

  String required(String name) {
    return get(name).orElseThrow(() -> new IllegalArgumentException(name + " is required"));
  }
}
