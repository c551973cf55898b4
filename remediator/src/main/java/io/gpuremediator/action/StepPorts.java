package io.gpuremediator.action;

import io.gpuremediator.device.Devices;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.safety.StepLimits;
import io.gpuremediator.workload.Workloads;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What long steps act through: the nodes, the workloads, the devices DRA publishes, the ports outside Kubernetes, and the fleet's limits they
 * take a place in (drain and pre-flight slots, the replacement limit).
 *
 * @param retryDelay how long a blocked eviction or a retriable cloud error waits before it is asked again
 * @param jobNamespace where Jobs are created
 * @param dra the DRA driver whose ResourceSlices publish the GPUs, and whose DaemonSets a fence keeps ({@code dra})
 * @param evidenceStore where the reports of collect steps that name no store go ({@code evidence.store})
 */
public record StepPorts(Cluster cluster, Workloads workloads, Devices devices, OutboundPorts outside, StepLimits limits,
    Duration retryDelay, String jobNamespace, Set<String> replaceProviders, DraScope dra,
    Optional<EvidenceStore> evidenceStore) {
  /** Validates presence. */
  public StepPorts {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(workloads, "workloads");
    Objects.requireNonNull(devices, "devices");
    Objects.requireNonNull(dra, "dra");
    Objects.requireNonNull(outside, "outside");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(retryDelay, "retryDelay");
    Objects.requireNonNull(jobNamespace, "jobNamespace");
    replaceProviders = Set.copyOf(replaceProviders);
    Objects.requireNonNull(evidenceStore, "evidenceStore");
  }

  /** Ports without a default evidence store. */
  public StepPorts(Cluster cluster, Workloads workloads, Devices devices, OutboundPorts outside, StepLimits limits,
      Duration retryDelay, String jobNamespace, Set<String> replaceProviders, DraScope dra) {
    this(cluster, workloads, devices, outside, limits, retryDelay, jobNamespace, replaceProviders, dra, Optional.empty());
  }

  /** Where the report of this step's evidence Job goes: its own store, else the service's; empty: nowhere. */
  public Optional<EvidenceStore> evidenceStoreOf(ActionSpec step) {
    return step.evidenceStore().or(() -> evidenceStore);
  }

  /** Ports of a cluster without DRA. */
  public StepPorts(Cluster cluster, Workloads workloads, OutboundPorts outside, StepLimits limits, Duration retryDelay,
      String jobNamespace, Set<String> replaceProviders) {
    this(cluster, workloads, Devices.NONE, outside, limits, retryDelay, jobNamespace, replaceProviders,
        DraScope.DEFAULT);
  }

  /** The DRA driver whose ResourceSlices publish the GPUs ({@code dra.driver}). */
  public String draDriver() {
    return dra.driver();
  }
}
