package io.gpuremediator.workload;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A diagnostic Job to create: pinned to {@code node} by nodeName, tolerating the given taints,
 * {@code backoffLimit: 0}, {@code restartPolicy: Never}, and {@code activeDeadlineSeconds} from {@code deadline}.
 *
 * @param tolerations taint keys to tolerate (any value and effect)
 */
public record DiagnosticJob(String namespace, String name, String node, String image, List<String> command,
    Duration deadline, Map<String, String> labels, List<String> tolerations) {
  /** Validates presence and copies. */
  public DiagnosticJob {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(image, "image");
    command = List.copyOf(command);
    Objects.requireNonNull(deadline, "deadline");
    labels = Map.copyOf(labels);
    tolerations = List.copyOf(tolerations);
  }
}
