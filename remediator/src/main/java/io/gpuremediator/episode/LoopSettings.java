package io.gpuremediator.episode;

import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.SparePolicy;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.value.CountOrPercent;
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
 *     the API server far more than it computes, and the API throttle, not the workers, paces the calls)
 * @param deferTo signs that another system owns a node's repair ({@code defer_to}): an episode between steps on such a
 *     node stops for a human
 * @param dra the DRA driver a {@code fence_gpu} fences through, and the namespaces whose DaemonSets it keeps
 * @param evidenceStore where the reports of collect steps that name no store of their own go ({@code evidence.store})
 * @param spares the hot spare pool ({@code spares}), when configured
 */
public record LoopSettings(Duration interval, Duration retryDelay, CountOrPercent maxDraining, String jobNamespace,
    Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers,
    List<DeferRule> deferTo, DraScope dra, Optional<EvidenceStore> evidenceStore, Optional<SparePolicy> spares) {
  /** How many loop intervals a place a step took counts on its own, before the node cache must show it. */
  private static final int SETTLE_INTERVALS = 3;

  /** Settings with no spare pool. */
  public LoopSettings(Duration interval, Duration retryDelay, CountOrPercent maxDraining, String jobNamespace,
      Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers,
      List<DeferRule> deferTo, DraScope dra, Optional<EvidenceStore> evidenceStore) {
    this(interval, retryDelay, maxDraining, jobNamespace, replaceProviders, preflight, page, workers, deferTo, dra,
        evidenceStore, Optional.empty());
  }

  /** Settings whose collect steps store their reports only where they say ({@code collect.store}). */
  public LoopSettings(Duration interval, Duration retryDelay, CountOrPercent maxDraining, String jobNamespace,
      Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers,
      List<DeferRule> deferTo, DraScope dra) {
    this(interval, retryDelay, maxDraining, jobNamespace, replaceProviders, preflight, page, workers, deferTo, dra,
        Optional.empty());
  }

  /** Settings that fence through NVIDIA's DRA driver ({@link DraScope#DEFAULT}). */
  public LoopSettings(Duration interval, Duration retryDelay, CountOrPercent maxDraining, String jobNamespace,
      Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers,
      List<DeferRule> deferTo) {
    this(interval, retryDelay, maxDraining, jobNamespace, replaceProviders, preflight, page, workers, deferTo,
        DraScope.DEFAULT);
  }

  /** Settings that defer to no other repairer. */
  public LoopSettings(Duration interval, Duration retryDelay, CountOrPercent maxDraining, String jobNamespace,
      Set<String> replaceProviders, Optional<PreflightSettings> preflight, List<String> page, int workers) {
    this(interval, retryDelay, maxDraining, jobNamespace, replaceProviders, preflight, page, workers, List.of());
  }

  /** Settings with no replace provider through the Kubernetes API, no pre-flight gate, no one paged, two workers. */
  public LoopSettings(Duration interval, Duration retryDelay, CountOrPercent maxDraining, String jobNamespace) {
    this(interval, retryDelay, maxDraining, jobNamespace, Set.of(), Optional.empty(), List.of(), 2);
  }

  /**
   * How long a place a step took (a drain slot, a GPU) counts on its own at this interval, before the node cache must
   * show it in the ledger.
   */
  public static Duration settle(Duration interval) {
    return interval.multipliedBy(SETTLE_INTERVALS);
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
    Objects.requireNonNull(dra, "dra");
    Objects.requireNonNull(evidenceStore, "evidenceStore");
    Objects.requireNonNull(spares, "spares");
    if (workers < 1) {
      throw new IllegalArgumentException("the loop needs at least one worker");
    }
  }
}
