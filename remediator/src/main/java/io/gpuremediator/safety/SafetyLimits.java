package io.gpuremediator.safety;

import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The configured fleet limits.
 *
 * @param breakerNodes the breaker opens when MORE distinct nodes than this start firing within {@code breakerWindow}
 * @param cooldown the default time after a release before the same playbook may act on the node again
 * @param replaceRate instance replacements admitted fleet-wide per window ({@code safety.replace_rate_limit})
 * @param domains the failure domains' budgets ({@code safety.domains}), checked with the fleet's
 * @param maxUnavailableGpus GPUs fenced plus the GPUs of unavailable nodes ({@code safety.max_unavailable_gpus}), taken
 *     by a fence's start ({@link GpuBudget}) and shown with the other limits
 * @param maxFencedPerNode GPUs fenced on one node ({@code safety.max_fenced_per_node})
 */
public record SafetyLimits(
    CountOrPercent maxUnavailable,
    Rate rate,
    int breakerNodes,
    Duration breakerWindow,
    Optional<Duration> autoResetAfter,
    Duration cooldown,
    Rate replaceRate,
    List<DomainBudget> domains,
    CountOrPercent maxUnavailableGpus,
    int maxFencedPerNode) {

  /** The fleet default for instance replacements: 2 a day. */
  public static final Rate DEFAULT_REPLACE_RATE = new Rate(2, Duration.ofHours(24));

  /** The default GPU budget: 10% of the selected nodes' GPUs. */
  public static final CountOrPercent DEFAULT_MAX_UNAVAILABLE_GPUS = new CountOrPercent(10, true);

  /** The default GPUs fenced on one node: one. */
  public static final int DEFAULT_MAX_FENCED_PER_NODE = 1;

  /**
   * What {@code safety:} means when it says nothing: 10% unavailable, 10 new episodes an hour, the breaker at more than
   * 5 nodes in 10 minutes (reset by a human), an hour's cooldown, and the defaults above; the one place they are written.
   */
  public static final SafetyLimits DEFAULTS = new SafetyLimits(new CountOrPercent(10, true), new Rate(10, Duration.ofHours(1)),
      5, Duration.ofMinutes(10), Optional.empty(), Duration.ofHours(1), DEFAULT_REPLACE_RATE, List.of(),
      DEFAULT_MAX_UNAVAILABLE_GPUS, DEFAULT_MAX_FENCED_PER_NODE);

  /** Copies the domains. */
  public SafetyLimits {
    domains = List.copyOf(domains);
  }

  /** Limits with one GPU fenced on a node at most. */
  public SafetyLimits(CountOrPercent maxUnavailable, Rate rate, int breakerNodes, Duration breakerWindow,
      Optional<Duration> autoResetAfter, Duration cooldown, Rate replaceRate, List<DomainBudget> domains,
      CountOrPercent maxUnavailableGpus) {
    this(maxUnavailable, rate, breakerNodes, breakerWindow, autoResetAfter, cooldown, replaceRate, domains,
        maxUnavailableGpus, DEFAULT_MAX_FENCED_PER_NODE);
  }

  /** Limits with the default GPU budget. */
  public SafetyLimits(CountOrPercent maxUnavailable, Rate rate, int breakerNodes, Duration breakerWindow,
      Optional<Duration> autoResetAfter, Duration cooldown, Rate replaceRate, List<DomainBudget> domains) {
    this(maxUnavailable, rate, breakerNodes, breakerWindow, autoResetAfter, cooldown, replaceRate, domains,
        DEFAULT_MAX_UNAVAILABLE_GPUS);
  }

  /** Limits with the default replacement rate and no failure domain. */
  public SafetyLimits(CountOrPercent maxUnavailable, Rate rate, int breakerNodes, Duration breakerWindow,
      Optional<Duration> autoResetAfter, Duration cooldown) {
    this(maxUnavailable, rate, breakerNodes, breakerWindow, autoResetAfter, cooldown, DEFAULT_REPLACE_RATE);
  }

  /** Limits with no failure domain. */
  public SafetyLimits(CountOrPercent maxUnavailable, Rate rate, int breakerNodes, Duration breakerWindow,
      Optional<Duration> autoResetAfter, Duration cooldown, Rate replaceRate) {
    this(maxUnavailable, rate, breakerNodes, breakerWindow, autoResetAfter, cooldown, replaceRate, List.of());
  }

  /** How long fleet state must be kept to evaluate every window (at least a day, for playbook rate limits). */
  public Duration retention() {
    Duration longest = rate.window().compareTo(breakerWindow) > 0 ? rate.window() : breakerWindow;
    longest = replaceRate.window().compareTo(longest) > 0 ? replaceRate.window() : longest;
    for (DomainBudget d : domains) {
      Duration w = d.incident().map(DomainBudget.IncidentRule::window).orElse(Duration.ZERO);
      longest = w.compareTo(longest) > 0 ? w : longest;
    }
    return longest.compareTo(Duration.ofDays(1)) > 0 ? longest : Duration.ofDays(1);
  }
}
