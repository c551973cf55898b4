package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec;
import java.util.ArrayList;
import java.util.List;

/** The taints a playbook's steps touch: what a Job of its episode must tolerate. */
final class TaintKeys {
  private TaintKeys() {}

  /** The keys of the taints the steps set or remove ({@link ActionSpec#taintKey}), each once. */
  static List<String> of(List<ActionSpec> steps) {
    List<String> keys = new ArrayList<>();
    for (ActionSpec a : steps) {
      a.taintKey().filter(key -> !keys.contains(key)).ifPresent(keys::add);
    }
    return keys;
  }
}
