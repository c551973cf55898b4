package io.gpuremediator.verdict;

import java.util.Locale;
import java.util.Optional;

/** The rungs of the repair ladder a diagnostic's verdict chooses, the least disruptive first. */
public enum Rung {
  /** Reset the failed GPU ({@code nvidia-smi -r}): DCGM's "Drain and reset GPU", an NVLink that a reset brings up. */
  RESET_GPU,
  /** Reboot the node: a fault of the software stack or the PCIe link, which a boot starts again. */
  REBOOT,
  /** Send the node to service (a human, an RMA): faulty memory, NVSwitch, thermal or power hardware. */
  SERVICE;

  /** The playbook's word for it ({@code reset_gpu}, {@code reboot}, {@code service}). */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The rung of this word. */
  public static Optional<Rung> of(String code) {
    for (Rung r : values()) {
      if (r.code().equals(code)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
