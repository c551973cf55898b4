package io.gpuremediator.state;

import java.util.Optional;

/**
 * A GPU an episode fenced: the device as DRA names it (driver, pool, device), its UUID (what a reset or a diagnostic
 * names it by) and the DeviceTaintRule that fences it. Held as {@code gpu_fence/<rule>}, its value
 * {@code "<driver> <pool> <device> <uuid>"}: none of them holds a space.
 */
public record FencedGpu(String driver, String pool, String device, String uuid, String rule) {
  /** The kind of holding. */
  public static final String KIND = "gpu_fence";

  /** The fenced GPU a holding is; empty when it is another kind or not four words (nothing is fenced by it). */
  public static Optional<FencedGpu> of(Held h) {
    String[] parts = h.value().split(" ");
    return h.kind().equals(KIND) && parts.length == 4
        ? Optional.of(new FencedGpu(parts[0], parts[1], parts[2], parts[3], h.name())) : Optional.empty();
  }

  /** As the ledger holds it. */
  public Held held() {
    return new Held(KIND, rule, String.join(" ", driver, pool, device, uuid));
  }

  @Override
  public String toString() {
    return uuid + " (" + driver + "/" + pool + "/" + device + ")";
  }
}
