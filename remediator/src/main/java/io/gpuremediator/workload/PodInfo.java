package io.gpuremediator.workload;

import java.util.Objects;
import java.util.Optional;

/**
 * A pod on a node, as a drain sees it.
 *
 * @param phase {@code Pending}, {@code Running}, {@code Succeeded}, {@code Failed} or {@code Unknown}
 * @param daemonSet owned by a DaemonSet (its controller would put it straight back)
 * @param mirror a static pod's mirror ({@code kubernetes.io/config.mirror}): the API cannot remove it
 * @param terminating deletion has started (deletionTimestamp set)
 * @param gracePeriodSeconds the pod's own terminationGracePeriodSeconds, if set
 */
public record PodInfo(String namespace, String name, String uid, String phase, boolean daemonSet, boolean mirror,
    boolean terminating, Optional<Long> gracePeriodSeconds) {
  /** Validates presence. */
  public PodInfo {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    uid = uid == null ? "" : uid;
    phase = phase == null ? "Unknown" : phase;
    Objects.requireNonNull(gracePeriodSeconds, "gracePeriodSeconds");
  }

  /** Whether the pod has finished (Succeeded or Failed): it holds nothing and needs no eviction. */
  public boolean finished() {
    return phase.equals("Succeeded") || phase.equals("Failed");
  }

  /** {@code namespace/name}. */
  public String ref() {
    return namespace + "/" + name;
  }
}
