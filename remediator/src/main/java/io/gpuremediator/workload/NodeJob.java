package io.gpuremediator.workload;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A Job to run on one node (diagnostics, a GPU reset, a reboot): pinned to {@code node} by nodeName, tolerating the
 * given taints, {@code backoffLimit: 0}, {@code restartPolicy: Never}, and {@code activeDeadlineSeconds} from
 * {@code deadline}, kept {@code keep} after it finished (ttlSecondsAfterFinished: the Job and its pod's log).
 *
 * @param container the name of its one container (the step kind)
 * @param env environment variables of the container
 * @param tolerations taint keys to tolerate (any value and effect)
 * @param privileged whether the container is privileged (a GPU reset, a reboot)
 * @param hostPid whether the pod shares the host's PID namespace (a reboot through nsenter into PID 1)
 * @param volumes what the container mounts (the node's root for an evidence Job, the claim evidence is stored on)
 * @param priorityClass the pod's PriorityClass (a sweep's, the lowest: the scheduler preempts it for any other pod),
 *     whose pod a disruption (a preemption, a drain) sends back to run again rather than failing the Job; empty: the
 *     cluster's default, and any failure fails the Job
 */
public record NodeJob(String namespace, String name, String node, String container, String image, List<String> command,
    Map<String, String> env, Duration deadline, Duration keep, Map<String, String> labels, List<String> tolerations,
    boolean privileged, boolean hostPid, List<JobVolume> volumes, Optional<String> priorityClass) {
  /** A Job of the cluster's default priority. */
  public NodeJob(String namespace, String name, String node, String container, String image, List<String> command,
      Map<String, String> env, Duration deadline, Duration keep, Map<String, String> labels, List<String> tolerations,
      boolean privileged, boolean hostPid, List<JobVolume> volumes) {
    this(namespace, name, node, container, image, command, env, deadline, keep, labels, tolerations, privileged, hostPid,
        volumes, Optional.empty());
  }

  /** A Job that mounts nothing. */
  public NodeJob(String namespace, String name, String node, String container, String image, List<String> command,
      Map<String, String> env, Duration deadline, Duration keep, Map<String, String> labels, List<String> tolerations,
      boolean privileged, boolean hostPid) {
    this(namespace, name, node, container, image, command, env, deadline, keep, labels, tolerations, privileged, hostPid,
        List.of());
  }

  /** Validates presence and copies. */
  public NodeJob {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(container, "container");
    Objects.requireNonNull(image, "image");
    command = List.copyOf(command);
    env = Map.copyOf(env);
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(keep, "keep");
    labels = Map.copyOf(labels);
    tolerations = List.copyOf(tolerations);
    volumes = List.copyOf(volumes);
    Objects.requireNonNull(priorityClass, "priorityClass");
  }
}
