package io.gpuremediator.action;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.outbound.OutsidePorts;
import io.gpuremediator.workload.Workloads;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * What long steps act through: the nodes, the workloads, the ports outside Kubernetes, and the fleet's drain and
 * pre-flight slots.
 *
 * @param retryDelay how long a blocked eviction or a retriable cloud error waits before it is asked again
 * @param jobNamespace where Jobs are created
 * @param maxDraining how many nodes may drain at once now ({@code safety.max_draining} of the selected nodes)
 * @param maxPreflight how many nodes may run a pre-flight Job at once now ({@code preflight.max_concurrent})
 */
public record StepPorts(Cluster cluster, Workloads workloads, OutsidePorts outside, Slots drainSlots,
    IntSupplier maxDraining, Slots preflightSlots, IntSupplier maxPreflight, Duration retryDelay, String jobNamespace,
    Set<String> replaceProviders) {
  /** Validates presence. */
  public StepPorts {
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(workloads, "workloads");
    Objects.requireNonNull(outside, "outside");
    Objects.requireNonNull(drainSlots, "drainSlots");
    Objects.requireNonNull(maxDraining, "maxDraining");
    Objects.requireNonNull(preflightSlots, "preflightSlots");
    Objects.requireNonNull(maxPreflight, "maxPreflight");
    Objects.requireNonNull(retryDelay, "retryDelay");
    Objects.requireNonNull(jobNamespace, "jobNamespace");
    replaceProviders = Set.copyOf(replaceProviders);
  }
}
