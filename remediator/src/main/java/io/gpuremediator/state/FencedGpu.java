package io.gpuremediator.state;

import java.util.Optional;

/**
 * A GPU an episode fenced: the device as DRA names it (driver, pool, device), its UUID (what a reset or a diagnostic
 * names it by) and the DeviceTaintRule that fences it. The ledger keeps it as
 * {@code "<driver> <pool> <device> <uuid> <rule>"}: none of them holds a space.
 */
public record FencedGpu(String driver, String pool, String device, String uuid, String rule) {
  /** As the ledger keeps it; empty when it is not five words (a hand-edited ledger: nothing is fenced by it). */
  static Optional<FencedGpu> parse(String value) {
    String[] parts = value.split(" ");
    return parts.length == 5 ? Optional.of(new FencedGpu(parts[0], parts[1], parts[2], parts[3], parts[4]))
        : Optional.empty();
  }

  /** As the ledger keeps it. */
  String value() {
    return String.join(" ", driver, pool, device, uuid, rule);
  }

  @Override
  public String toString() {
    return uuid + " (" + driver + "/" + pool + "/" + device + ")";
  }
}
