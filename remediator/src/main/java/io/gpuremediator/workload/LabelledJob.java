package io.gpuremediator.workload;

import java.util.Map;
import java.util.Objects;

/**
 * A Job found by its label, as a list finds it.
 *
 * @param node the node its pod is pinned to ({@code nodeName}); empty when it is pinned to none
 * @param labels its labels
 * @param run how it ran, and when it was created
 * @param ready whether a pod of it is Ready now (the Job's {@code status.ready}): its container started
 */
public record LabelledJob(String name, String node, Map<String, String> labels, JobRun run, boolean ready) {
  /** Validates presence; copies the labels. */
  public LabelledJob {
    Objects.requireNonNull(name, "name");
    node = node == null ? "" : node;
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    Objects.requireNonNull(run, "run");
  }
}
