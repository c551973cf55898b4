package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The limits long steps take a place in, beside the admission's: nodes draining at once ({@code safety.max_draining}),
 * pre-flight Jobs at once ({@code preflight.max_concurrent}), and instance replacements fleet-wide
 * ({@code safety.replace_rate_limit}, the pause, the breaker), and the GPUs fenced ({@code safety.max_unavailable_gpus},
 * {@code safety.max_fenced_per_node}).
 */
public record StepLimits(Slots drains, Slots preflights, ReplaceBudget replacements, GpuBudget gpus) {
  /** Validates presence. */
  public StepLimits {
    Objects.requireNonNull(drains, "drains");
    Objects.requireNonNull(preflights, "preflights");
    Objects.requireNonNull(replacements, "replacements");
    Objects.requireNonNull(gpus, "gpus");
  }

  /**
   * The step limits the safety gate builds from its {@link SafetyLimits}: instance replacements and the GPU limits.
   * The loop adds its node slots.
   */
  public record Fleet(ReplaceBudget replacements, GpuBudget gpus) {
    /** No replacement and no GPU fence admitted: for a loop built without the safety gate. */
    public static final Fleet NONE = new Fleet(ReplaceBudget.NONE, GpuBudget.none());

    /** Validates presence. */
    public Fleet {
      Objects.requireNonNull(replacements, "replacements");
      Objects.requireNonNull(gpus, "gpus");
    }
  }

  /** How the drain slots are named. */
  public static final Slots.Key DRAINS = new Slots.Key("max_draining", Reason.MAX_DRAINING,
      "are draining (safety.max_draining)");
  /** How the pre-flight slots are named. */
  public static final Slots.Key PREFLIGHTS = new Slots.Key("preflight.max_concurrent", Reason.PREFLIGHT_WAITING,
      "run a pre-flight job (preflight.max_concurrent)");

  /** Limits with no GPU to fence. */
  public StepLimits(Slots drains, Slots preflights, ReplaceBudget replacements) {
    this(drains, preflights, replacements, GpuBudget.none());
  }

  /** The fleet's limits with the loop's node slots. */
  public StepLimits(Slots drains, Slots preflights, Fleet fleet) {
    this(drains, preflights, fleet.replacements(), fleet.gpus());
  }

  /** Limits where no step may take a place but a replacement, as {@code replacements} admits it: for a test's loop. */
  public static StepLimits onlyReplacing(ReplaceBudget replacements) {
    return new StepLimits(Slots.none(DRAINS), Slots.none(PREFLIGHTS), replacements);
  }

  /**
   * What the node-slot limits have used now (drains, pre-flight Jobs); the replacements and the GPUs fenced are counted
   * by the safety gate from the fleet state and its limits, beside the admission's rows.
   */
  public List<LimitUsage> slotUsage(Instant now) {
    List<LimitUsage> out = new ArrayList<>(drains.usage(now));
    out.addAll(preflights.usage(now));
    return out;
  }
}
