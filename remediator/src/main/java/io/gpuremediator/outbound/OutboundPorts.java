package io.gpuremediator.outbound;

import java.util.Objects;

/**
 * What the loop calls outside Kubernetes: Alertmanager's silences, the notifier, the cloud's instance health, the
 * reboots of instances and of servers through their BMCs, and the object store evidence is uploaded to.
 */
public record OutboundPorts(Silences silences, Notifier notifier, InstanceHealth instances, InstanceReboots instanceReboots,
    BmcResets bmcs, EvidenceUploads evidence) {
  /** Nothing configured: silences, replacements and reboots are refused (and say so), notifications have no receiver. */
  public static final OutboundPorts NONE = new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE,
      InstanceHealth.NOT_CONFIGURED);

  /** Ports without an object store client. */
  public OutboundPorts(Silences silences, Notifier notifier, InstanceHealth instances, InstanceReboots instanceReboots,
      BmcResets bmcs) {
    this(silences, notifier, instances, instanceReboots, bmcs, EvidenceUploads.NOT_CONFIGURED);
  }

  /** Ports without reboots outside Kubernetes. */
  public OutboundPorts(Silences silences, Notifier notifier, InstanceHealth instances) {
    this(silences, notifier, instances, InstanceReboots.NOT_CONFIGURED, BmcResets.NOT_CONFIGURED);
  }

  /** Validates presence. */
  public OutboundPorts {
    Objects.requireNonNull(silences, "silences");
    Objects.requireNonNull(notifier, "notifier");
    Objects.requireNonNull(instances, "instances");
    Objects.requireNonNull(instanceReboots, "instanceReboots");
    Objects.requireNonNull(bmcs, "bmcs");
    Objects.requireNonNull(evidence, "evidence");
  }
}
