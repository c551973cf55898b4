package io.gpuremediator.outbound;

import java.util.Objects;

/**
 * What the loop calls outside Kubernetes: Alertmanager's silences, the notifier, the cloud's instance health, and
 * the fleet's replacement budget.
 */
public record OutsidePorts(Silences silences, Notifier notifier, InstanceHealth instances, ReplaceBudget replaceBudget) {
  /** Nothing configured: silences and replacements are refused (and say so), notifications have no receiver. */
  public static final OutsidePorts NONE = new OutsidePorts(Silences.NOT_CONFIGURED, Notifier.NONE,
      InstanceHealth.NOT_CONFIGURED, ReplaceBudget.NONE);

  /** Validates presence. */
  public OutsidePorts {
    Objects.requireNonNull(silences, "silences");
    Objects.requireNonNull(notifier, "notifier");
    Objects.requireNonNull(instances, "instances");
    Objects.requireNonNull(replaceBudget, "replaceBudget");
  }
}
