package io.gpuremediator.device;

import java.util.Objects;
import java.util.Set;

/**
 * The service config's {@code dra}: which DRA driver publishes the GPUs a {@code fence_gpu} fences, and whose
 * DaemonSet pods a fence never evicts ({@code keep_namespaces}). The GPU Operator's DRA exporter holds every GPU of its
 * node through one claim ({@code allocationMode: All}, {@code adminAccess: true}, no tolerations), and neither exempts
 * it from a device taint's eviction: evicted, it takes every GPU of the node dark, the fenced one's repair included.
 *
 * @param keepNamespaces the namespaces whose DaemonSet pods keep running on a fenced GPU
 */
public record DraScope(String driver, Set<String> keepNamespaces) {
  /** NVIDIA's DRA driver. */
  public static final String NVIDIA_DRIVER = "gpu.nvidia.com";
  /** The GPU Operator's namespace and ours. */
  public static final Set<String> DEFAULT_KEEP_NAMESPACES = Set.of("gpu-operator", "gpu-remediator");
  /** NVIDIA's driver, keeping the GPU Operator's DaemonSets and ours. */
  public static final DraScope DEFAULT = new DraScope(NVIDIA_DRIVER, DEFAULT_KEEP_NAMESPACES);

  /** Validates presence; copies. */
  public DraScope {
    Objects.requireNonNull(driver, "driver");
    keepNamespaces = Set.copyOf(keepNamespaces);
  }

  /** This driver, keeping the default namespaces' DaemonSets. */
  public static DraScope of(String driver) {
    return new DraScope(driver, DEFAULT_KEEP_NAMESPACES);
  }

  /** Whether a pod on a fenced GPU is one a fence leaves running: a DaemonSet's, in a kept namespace. */
  public boolean keeps(String namespace, boolean daemonSet) {
    return daemonSet && keepNamespaces.contains(namespace);
  }
}
