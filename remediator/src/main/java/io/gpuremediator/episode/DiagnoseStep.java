package io.gpuremediator.episode;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.ActionSpec.DiagnoseSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.state.NodeLedger.Episode;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.workload.DiagnosticJob;
import io.gpuremediator.workload.JobState;
import io.gpuremediator.workload.Workloads;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A diagnostic Job pinned to the node. Its name follows from the episode, the step and the attempt, so
 * starting it twice (a restart between the ledger write and the create) finds the same Job: one Job per
 * diagnose step. It passes only when the Job completes; a Job that fails, times out, or is gone (deleted,
 * or lost with its node) fails the step.
 */
final class DiagnoseStep {
  /** The label every diagnostic Job carries, with the episode's hash. */
  static final String EPISODE_LABEL = NodeKeys.DOMAIN + "episode";
  private static final int LOG_LINES = 20;
  /** Time for the Job controller to mark the deadline after activeDeadlineSeconds passed. */
  private static final Duration DEADLINE_SLACK = Duration.ofMinutes(2);

  private final Workloads workloads;
  private final String namespace;

  DiagnoseStep(Workloads workloads, String namespace) {
    this.workloads = workloads;
    this.namespace = namespace;
  }

  /** The Job's name for this episode, step, start and attempt (a retry is a new attempt): stable across restarts. */
  static String jobName(String node, Episode e, int step, Instant started, int attempt) {
    return "gpu-diag-" + hash(node + "/" + e.fingerprint() + "@" + e.startsAt() + "/" + step + "/" + started + "/" + attempt)
        .substring(0, 16);
  }

  static String episodeHash(String node, Episode e) {
    return hash(node + "/" + e.fingerprint() + "@" + e.startsAt()).substring(0, 16);
  }

  void start(String node, Episode e, Playbook playbook, DiagnoseSpec spec, Task task) throws ClusterException {
    List<String> tolerations = new ArrayList<>();
    tolerations.add("node.kubernetes.io/unschedulable");
    for (ActionSpec a : playbook.actions()) {
      if (a instanceof ActionSpec.TaintSpec t && !tolerations.contains(t.key())) {
        tolerations.add(t.key());
      }
    }
    workloads.createJob(new DiagnosticJob(namespace, task.handle(), node, spec.image(), spec.command(), spec.timeout(),
        Map.of(EPISODE_LABEL, episodeHash(node, e), NodeKeys.DOMAIN + "step", "diagnose"), tolerations));
  }

  StepResult look(DiagnoseSpec spec, Task task, Instant now) throws ClusterException {
    String job = namespace + "/" + task.handle();
    Optional<JobState> state = workloads.job(namespace, task.handle());
    if (state.isEmpty()) {
      return new StepResult.Failed("diagnostic job " + job + " is gone (deleted, or lost with its node): not passed");
    }
    return switch (state.get()) {
      case SUCCEEDED -> new StepResult.Succeeded("diagnostic job " + job + " completed");
      case RUNNING -> now.isAfter(task.started().plus(spec.timeout()).plus(DEADLINE_SLACK))
          ? new StepResult.Failed("diagnostic job " + job + " did not finish within " + io.gpuremediator.value.Durations.format(
              spec.timeout()))
          : new StepResult.Running("diagnostic job " + job + " running", Optional.empty());
      case FAILED -> new StepResult.Failed("diagnostic job " + job + " failed" + tail(task));
      case TIMED_OUT -> new StepResult.Failed("diagnostic job " + job + " timed out after "
          + io.gpuremediator.value.Durations.format(spec.timeout()) + tail(task));
    };
  }

  private String tail(Task task) throws ClusterException {
    String log = workloads.logTail(namespace, task.handle(), LOG_LINES).strip();
    return log.isEmpty() ? " (no log)" : "; log tail: " + (log.length() > 1500 ? "..." + log.substring(log.length() - 1500) : log);
  }

  private static String hash(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
