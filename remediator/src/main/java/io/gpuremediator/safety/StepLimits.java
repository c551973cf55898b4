package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The limits long steps take a place in, beside the admission's, as rows by name: nodes draining at once
 * ({@code safety.max_draining}), pre-flight Jobs at once ({@code preflight.max_concurrent}), and any other a step kind
 * adds ({@link #with}); beside them instance replacements fleet-wide ({@code safety.replace_rate_limit}, the pause, the
 * breaker) and the GPUs fenced ({@code safety.max_unavailable_gpus}, {@code safety.max_fenced_per_node}), whose usage
 * the safety gate counts from the fleet state under its lock.
 */
public final class StepLimits {
  /** How the drain slots are named. */
  public static final Slots.Key DRAINS = new Slots.Key("max_draining", Reason.MAX_DRAINING,
      "are draining (safety.max_draining)");
  /** How the pre-flight slots are named. */
  public static final Slots.Key PREFLIGHTS = new Slots.Key("preflight.max_concurrent", Reason.PREFLIGHT_WAITING,
      "run a pre-flight job (preflight.max_concurrent)");

  /**
   * The step limits the safety gate builds from its {@link SafetyLimits}: instance replacements and the GPU limits.
   * The loop adds its node slots.
   */
  public record Fleet(ReplaceLimit replacements, GpuBudget gpus) {
    /** No replacement and no GPU fence admitted: for a loop built without the safety gate. */
    public static final Fleet NONE = new Fleet(ReplaceLimit.NONE, GpuBudget.none());

    /** Validates presence. */
    public Fleet {
      Objects.requireNonNull(replacements, "replacements");
      Objects.requireNonNull(gpus, "gpus");
    }
  }

  private final Map<String, StepLimit> rows;
  private final Fleet fleet;

  private StepLimits(Map<String, StepLimit> rows, Fleet fleet) {
    this.rows = rows;
    this.fleet = Objects.requireNonNull(fleet, "fleet");
  }

  /** The fleet's limits with the loop's node slots. */
  public StepLimits(Slots drains, Slots preflights, Fleet fleet) {
    this(rowsOf(drains, preflights), fleet);
  }

  /** Limits with no GPU to fence. */
  public StepLimits(Slots drains, Slots preflights, ReplaceLimit replacements) {
    this(drains, preflights, new Fleet(replacements, GpuBudget.none()));
  }

  private static Map<String, StepLimit> rowsOf(Slots drains, Slots preflights) {
    Map<String, StepLimit> rows = new LinkedHashMap<>();
    rows.put(DRAINS.limit(), Objects.requireNonNull(drains, "drains"));
    rows.put(PREFLIGHTS.limit(), Objects.requireNonNull(preflights, "preflights"));
    return rows;
  }

  /** Limits where no step may take a place but a replacement, as {@code replacements} admits it: for a test's loop. */
  public static StepLimits onlyReplacing(ReplaceLimit replacements) {
    return new StepLimits(Slots.none(DRAINS), Slots.none(PREFLIGHTS), replacements);
  }

  /** These limits and one row more, under its usage row's name: the limit of a step kind that needs its own. */
  public StepLimits with(String name, StepLimit limit) {
    if (rows.containsKey(name)) {
      throw new IllegalArgumentException("step limit " + name + " is a row already");
    }
    Map<String, StepLimit> more = new LinkedHashMap<>(rows);
    more.put(name, Objects.requireNonNull(limit, "limit"));
    return new StepLimits(more, fleet);
  }

  /** The row of this name, for the step kind that takes it. */
  public StepLimit row(String name) {
    StepLimit limit = rows.get(name);
    if (limit == null) {
      throw new IllegalArgumentException("no step limit " + name + " (rows: " + String.join(", ", rows.keySet()) + ")");
    }
    return limit;
  }

  /** Nodes draining at once. */
  public StepLimit drains() {
    return rows.get(DRAINS.limit());
  }

  /** Pre-flight Jobs at once. */
  public StepLimit preflights() {
    return rows.get(PREFLIGHTS.limit());
  }

  /** Instance replacements fleet-wide. */
  public ReplaceLimit replacements() {
    return fleet.replacements();
  }

  /** The GPUs fenced. */
  public GpuBudget gpus() {
    return fleet.gpus();
  }

  /**
   * What the rows have used now (drains, pre-flight Jobs, any row added); the replacements and the GPUs fenced are
   * counted by the safety gate from the fleet state and its limits, beside the admission's rows.
   */
  public List<LimitUsage> rowUsage(Instant now) {
    List<LimitUsage> out = new ArrayList<>();
    rows.values().forEach(r -> out.addAll(r.usage(now)));
    return out;
  }
}
