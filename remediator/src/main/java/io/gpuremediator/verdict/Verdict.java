package io.gpuremediator.verdict;

import java.util.List;
import java.util.Objects;

/**
 * A diagnostic's verdict: the rung its worst failure needs, and each failure as decisions name it.
 *
 * @param failures e.g. "pcie GPU 5: error 98 (severity isolate, hardware PCIe): GPU 5 host-side PCIe replay ..."
 */
public record Verdict(Rung rung, List<String> failures) {
  /** Validates presence; copies the failures. */
  public Verdict {
    Objects.requireNonNull(rung, "rung");
    failures = List.copyOf(failures);
  }

  /** How decisions say it. */
  public String describe() {
    return "verdict " + rung.code() + " (" + String.join("; ", failures) + ")";
  }
}
