package io.gpuremediator.sweep;

import io.gpuremediator.node.LabelSelector;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code sweeps} item: run the first {@code diagnose} step of {@code playbook} on each idle selected node (and
 * {@code select}-matched, when given) once every {@code every}, at most {@code maxConcurrent} at a time, its pod of the
 * PriorityClass {@code priorityClass}.
 *
 * @param name an RFC 1123 label, unique among the sweeps: the value of the label its Jobs carry
 */
public record SweepPolicy(String name, Duration every, String playbook, Optional<LabelSelector> select, int maxConcurrent,
    String priorityClass) {
  /** The PriorityClass the chart and the manifests ship: the lowest value, never preempting anything. */
  public static final String DEFAULT_PRIORITY_CLASS = "gpu-remediator-sweep";
  /** The shortest {@code every}. */
  public static final Duration MIN_EVERY = Duration.ofMinutes(10);
  /** The longest {@code every}. */
  public static final Duration MAX_EVERY = Duration.ofDays(30);
  /** The most sweeps of one item at once. */
  public static final int MAX_CONCURRENT = 100;

  /** Validates presence and ranges. */
  public SweepPolicy {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(every, "every");
    Objects.requireNonNull(playbook, "playbook");
    Objects.requireNonNull(select, "select");
    Objects.requireNonNull(priorityClass, "priorityClass");
    if (maxConcurrent < 1 || maxConcurrent > MAX_CONCURRENT) {
      throw new IllegalArgumentException("max_concurrent must be 1 to " + MAX_CONCURRENT);
    }
  }
}
