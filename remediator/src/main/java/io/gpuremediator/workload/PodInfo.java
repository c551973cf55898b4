package io.gpuremediator.workload;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A pod on a node, as a drain sees it.
 *
 * @param phase {@code Pending}, {@code Running}, {@code Succeeded}, {@code Failed} or {@code Unknown}
 * @param daemonSet owned by a DaemonSet (its controller would put it straight back)
 * @param mirror a static pod's mirror ({@code kubernetes.io/config.mirror}): the API cannot remove it
 * @param terminating deletion has started (deletionTimestamp set)
 * @param gracePeriodSeconds the pod's own terminationGracePeriodSeconds, if set
 * @param labels the pod's labels (what a drain policy selects on)
 * @param annotations the pod's annotations (a checkpoint a training job marks itself with)
 * @param conditions the types of the pod's conditions whose status is {@code True}
 * @param accelerators whether a container requests an accelerator (a resource named {@code nvidia.com/gpu},
 *     {@code nvidia.com/mig-*}, {@code amd.com/gpu}, {@code aws.amazon.com/neuron*}) or the pod claims devices through DRA
 *     ({@code spec.resourceClaims}): real GPU work, which a sweep yields to
 */
public record PodInfo(String namespace, String name, String uid, String phase, boolean daemonSet, boolean mirror,
    boolean terminating, Optional<Long> gracePeriodSeconds, Map<String, String> labels, Map<String, String> annotations,
    Set<String> conditions, boolean accelerators) {
  /** Validates presence; copies the maps. */
  public PodInfo {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    uid = uid == null ? "" : uid;
    phase = phase == null ? "Unknown" : phase;
    Objects.requireNonNull(gracePeriodSeconds, "gracePeriodSeconds");
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    conditions = conditions == null ? Set.of() : Set.copyOf(conditions);
  }

  /** A pod that requests no accelerator. */
  public PodInfo(String namespace, String name, String uid, String phase, boolean daemonSet, boolean mirror,
      boolean terminating, Optional<Long> gracePeriodSeconds, Map<String, String> labels, Map<String, String> annotations,
      Set<String> conditions) {
    this(namespace, name, uid, phase, daemonSet, mirror, terminating, gracePeriodSeconds, labels, annotations, conditions,
        false);
  }

  /** A pod with no labels, annotations or conditions to read. */
  public PodInfo(String namespace, String name, String uid, String phase, boolean daemonSet, boolean mirror,
      boolean terminating, Optional<Long> gracePeriodSeconds) {
    this(namespace, name, uid, phase, daemonSet, mirror, terminating, gracePeriodSeconds, Map.of(), Map.of(), Set.of());
  }

  /** Whether the pod has finished (Succeeded or Failed): it holds nothing and needs no eviction. */
  public boolean finished() {
    return phase.equals("Succeeded") || phase.equals("Failed");
  }

  /** Whether the pod holds or will hold an accelerator: it requests one and has not finished or begun to stop. */
  public boolean usesAccelerators() {
    return accelerators && !finished() && !terminating;
  }

  /** {@code namespace/name}. */
  public String ref() {
    return namespace + "/" + name;
  }
}
