package io.gpuremediator.episode;

import io.gpuremediator.device.DraScope;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.value.Budget;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * How the loop runs.
 *
 * @param interval how often every episode is looked at (watch events look sooner)
 * @param retryDelay how long a blocked eviction (PodDisruptionBudget, throttling without Retry-After) waits
 * @param maxDraining how many nodes may be in stage draining at once ({@code safety.max_draining})
 * @param jobNamespace where diagnostic Jobs are created
 * @param replaceProviders the replace providers working through the Kubernetes API whose RBAC the config says is
 *     deployed ({@code karpenter}, {@code cluster-api})
 * @param preflight the pre-flight gate, when configured
 * @param page the notify receivers told when a node reaches needs_human ({@code safety.page})
 * @param workers how many nodes the loop looks at side by side ({@code kubernetes.writes_in_flight}: a look waits on
 *     the API server far more than it computes, and the API budget, not the workers, paces the calls)
 * @param deferTo signs that another system owns a node's repair ({@code defer_to}): an episode between steps on such a
 *     node stops for a human
 * @param fencing how one GPU is fenced: the DRA driver, and the GPU limits
 * @param evidenceStore where the reports of collect steps that name no store of their own go ({@code evidence.store})
 */
public record LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace,
    Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers,
    List<DeferRule> deferTo, Fencing fencing, Optional<EvidenceStore> evidenceStore) {
  /**
   * How one GPU is fenced ({@code dra}, {@code safety.max_unavailable_gpus}, {@code safety.max_fenced_per_node}).
   *
   * @param maxUnavailableGpus GPUs fenced plus the GPUs of unavailable nodes, fleet-wide
   * @param maxFencedPerNode GPUs fenced on one node
   */
  public record Fencing(DraScope dra, Budget maxUnavailableGpus, int maxFencedPerNode) {
    /** NVIDIA's DRA driver, keeping the GPU Operator's DaemonSets and ours; 10% of the selected nodes' GPUs; one GPU a node. */
    public static final Fencing DEFAULT = new Fencing(DraScope.DEFAULT, SafetyLimits.DEFAULT_MAX_UNAVAILABLE_GPUS, 1);

    /** This driver, keeping the default namespaces' DaemonSets. */
    public Fencing(String draDriver, Budget maxUnavailableGpus, int maxFencedPerNode) {
      this(DraScope.of(draDriver), maxUnavailableGpus, maxFencedPerNode);
    }
  }

  /** Settings whose collect steps store their reports only where they say ({@code collect.store}). */
  public LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace,
      Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers,
      List<DeferRule> deferTo, Fencing fencing) {
    this(interval, retryDelay, maxDraining, jobNamespace, replaceProviders, preflight, page, workers, deferTo, fencing,
        Optional.empty());
  }

  /** Settings that fence as {@link Fencing#DEFAULT} does. */
  public LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace,
      Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers,
      List<DeferRule> deferTo) {
    this(interval, retryDelay, maxDraining, jobNamespace, replaceProviders, preflight, page, workers, deferTo,
        Fencing.DEFAULT);
  }

  /** Settings that defer to no other repairer. */
  public LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace,
      Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers) {
    this(interval, retryDelay, maxDraining, jobNamespace, replaceProviders, preflight, page, workers, List.of());
  }

  /** Settings with no replace provider through the Kubernetes API, no pre-flight gate, no one paged, two workers. */
  public LoopSettings(Duration interval, Duration retryDelay, Budget maxDraining, String jobNamespace) {
    this(interval, retryDelay, maxDraining, jobNamespace, Set.of(), Optional.empty(), List.of(), 2);
  }

  /** Validates presence. */
  public LoopSettings {
    replaceProviders = Set.copyOf(replaceProviders);
    Objects.requireNonNull(preflight, "preflight");
    page = List.copyOf(page);
    deferTo = List.copyOf(deferTo);
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(retryDelay, "retryDelay");
    Objects.requireNonNull(maxDraining, "maxDraining");
    Objects.requireNonNull(jobNamespace, "jobNamespace");
    Objects.requireNonNull(fencing, "fencing");
    Objects.requireNonNull(evidenceStore, "evidenceStore");
    if (workers < 1) {
      throw new IllegalArgumentException("the loop needs at least one worker");
    }
  }
}
