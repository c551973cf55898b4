package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.value.Durations;
import io.gpuremediator.verdict.DcgmDiagVerdict;
import io.gpuremediator.workload.JobRun;
import io.gpuremediator.workload.JobState;
import io.gpuremediator.workload.JobVolume;
import io.gpuremediator.workload.NodeJob;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The Jobs steps run on their node (diagnose, gpu_reset, reboot by job): how their keys decode, how a Job is created
 * (named from the episode, the step and the attempt, so creating it twice finds the same Job), and what a look at it
 * finds. A Job passes only when it completes; one that fails, times out, or is gone (deleted, or lost with its node)
 * fails the step.
 */
final class PinnedJobs {
  /** The label every Job of a step carries, with the step kind. */
  static final String STEP_LABEL = NodeKeys.DOMAIN + "step";
  private static final int MAX_COMMAND_ARGS = 64;
  private static final int MAX_IMAGE_CHARS = 512;
  private static final int LOG_LINES = 20;
  private static final Pattern DCGM_WARNING = Pattern.compile("\"warning\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final long DOCUMENT_BYTES = 1 << 20;
  private static final int MAX_WARNINGS = 5;
  /** Time for the Job controller to mark the deadline after activeDeadlineSeconds passed. */
  private static final Duration DEADLINE_SLACK = Duration.ofMinutes(2);

  /**
   * What a step's Job runs and how.
   *
   * @param noun how decisions name it ("diagnostic job")
   * @param kind the step kind: the step label, and the container's name (with '-' for '_')
   */
  record Shape(String noun, String prefix, String kind, String image, List<String> command, Map<String, String> env,
      Duration timeout, boolean privileged, boolean hostPid, Duration keep, List<JobVolume> volumes) {
    /** A Job kept a day after it finished, for people to read (the Job controller then removes it; we never delete). */
    Shape(String noun, String prefix, String kind, String image, List<String> command, Map<String, String> env,
        Duration timeout, boolean privileged, boolean hostPid) {
      this(noun, prefix, kind, image, command, env, timeout, privileged, hostPid, Duration.ofDays(1), List.of());
    }
  }

  private PinnedJobs() {}

  /** The Job's name for the run's task: stable across restarts, new for each attempt. */
  static String name(LongStepRun<?> run, String prefix) {
    Task task = run.task();
    return EpisodeNames.jobName(prefix, run.node(), run.episode(), task.step(), task.started(), task.attempt());
  }

  /** Creates the Job (idempotent: its name follows from the task), tolerating the playbook's taints. */
  static String create(LongStepRun<?> run, Shape shape) throws ClusterException {
    String name = name(run, shape.prefix());
    create(run, shape, name);
    return name;
  }

  /** Creates the Job under this name (idempotent), tolerating the playbook's taints. */
  static void create(LongStepRun<?> run, Shape shape, String name) throws ClusterException {
    List<String> tolerations = new ArrayList<>();
    tolerations.add("node.kubernetes.io/unschedulable");
    TaintKeys.of(run.playbook().actions()).stream().filter(k -> !tolerations.contains(k))
        .forEach(tolerations::add);
    run.ports().workloads().createJob(new NodeJob(run.ports().jobNamespace(), name, run.node(), shape.kind().replace('_', '-'),
        shape.image(), shape.command(), shape.env(), shape.timeout(), shape.keep(),
        Map.of(EpisodeNames.JOB_EPISODE_LABEL, EpisodeNames.episodeHash(run.node(), run.episode()), STEP_LABEL,
            shape.kind()), tolerations, shape.privileged(), shape.hostPid(), shape.volumes()));
  }

  /** Creates the Job when the task has none yet, else looks at it: completed passes; failed, timed out or gone fails. */
  static StepResult createOrLook(LongStepRun<?> run, Shape shape, Reason failed) throws ClusterException {
    String namespace = run.ports().jobNamespace();
    Task task = run.task();
    if (task.handle().isEmpty()) {
      return started(run, shape);
    }
    String job = shape.noun() + " " + namespace + "/" + task.handle();
    Optional<JobState> state = run.ports().workloads().job(namespace, task.handle()).map(JobRun::state);
    if (state.isEmpty()) {
      return new StepResult.Failed(failed, job + " is gone (deleted, or lost with its node): not passed");
    }
    Duration timeout = shape.timeout();
    return switch (state.get()) {
      case SUCCEEDED -> new StepResult.Succeeded(job + " completed");
      case RUNNING -> run.now().isAfter(task.started().plus(timeout).plus(DEADLINE_SLACK))
          ? new StepResult.Failed(failed, job + " did not finish within " + Durations.format(timeout))
          : new StepResult.Running(job + " running", Optional.empty());
      case FAILED -> new StepResult.Failed(failed, job + " failed" + tail(run));
      case TIMED_OUT -> new StepResult.Failed(failed, job + " timed out after " + Durations.format(timeout) + tail(run));
    };
  }

  /** Creates the Job (idempotent) and says so: the task records its name. */
  static StepResult started(LongStepRun<?> run, Shape shape) throws ClusterException {
    String name = create(run, shape);
    String job = run.ports().jobNamespace() + "/" + name;
    return new StepResult.Started(name, shape.noun() + " " + job + " created", shape.noun() + " " + job
        + " created on " + run.node() + " (" + String.join(" ", shape.command()) + ")");
  }

  /** The whole log of the task's Job when it is a DCGM diagnostic document ({@code dcgmi diag -j}); else empty. */
  static Optional<String> document(LongStepRun<?> run) throws ClusterException {
    return run.ports().workloads().log(run.ports().jobNamespace(), run.task().handle(), DOCUMENT_BYTES)
        .filter(DcgmDiagVerdict::isDocument);
  }

  /**
   * What the Job's log says of its failure: the warnings of a DCGM diagnostic document ({@code dcgmi diag -j}, whose
   * verdict sits mid-document, far from its tail), else the log's last lines.
   */
  private static String tail(LongStepRun<?> run) throws ClusterException {
    String namespace = run.ports().jobNamespace();
    String log = run.ports().workloads().logTail(namespace, run.task().handle(), LOG_LINES).strip();
    if (log.endsWith("}")) {
      Optional<String> whole = run.ports().workloads().log(namespace, run.task().handle(), DOCUMENT_BYTES);
      if (whole.isPresent() && DcgmDiagVerdict.isDocument(whole.get())) {
        List<String> warnings = new ArrayList<>();
        Matcher m = DCGM_WARNING.matcher(whole.get());
        while (m.find() && warnings.size() < MAX_WARNINGS) {
          warnings.add(m.group(1).replace("\\\"", "\""));
        }
        return warnings.isEmpty() ? "; dcgmi diag: no warning in its document" : "; dcgmi diag: "
            + String.join("; ", warnings.stream().distinct().toList());
      }
    }
    return log.isEmpty() ? " (no log)" : "; log tail: " + (log.length() > 1500 ? "..." + log.substring(log.length() - 1500) : log);
  }

  /**
   * What a step running a checking Job (diagnose, the pre-flight) says it will do, applied to a draft: "run COMMAND
   * (IMAGE) as a NOUN on NODE (timeout; on failure: ...)".
   */
  static PreparedAction planned(String kind, String noun, String image, List<String> command, String node, Duration timeout,
      Optional<String> onFail) {
    String what = "run " + String.join(" ", command) + " (" + image + ") as a " + noun + " on " + node + " (timeout "
        + Durations.format(timeout) + "; on failure: " + ActionParams.onFailure(onFail) + ")";
    return draft -> new ActionRecord(kind, StepOutcome.PENDING, what);
  }

  /** The {@code image} key: required without a fallback. */
  static Optional<String> image(MapReader params, String kind, Optional<String> fallback) {
    if (!params.has("image") && fallback.isPresent()) {
      params.take("image");
      return fallback;
    }
    return params.requiredString("image").filter(i -> {
      if (i.isBlank() || i.length() > MAX_IMAGE_CHARS || i.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
        params.problems().add(params.at("image"), kind + " action: \"image\" must be an image reference without spaces, "
            + "at most " + MAX_IMAGE_CHARS + " characters");
        return false;
      }
      return true;
    });
  }

  /** The {@code command} key: 1 to 64 strings; required without a fallback. */
  static Optional<List<String>> command(MapReader params, String kind, Optional<List<String>> fallback) {
    if (!params.has("command")) {
      params.take("command");
      if (fallback.isEmpty()) {
        params.problems().add(params.node(), kind + " action: missing required key \"command\"");
      }
      return fallback;
    }
    return params.list("command").flatMap(items -> {
      List<String> out = new ArrayList<>();
      for (Node item : items) {
        params.scalar(item, "command").ifPresent(out::add);
      }
      if (out.size() != items.size() || out.isEmpty() || out.size() > MAX_COMMAND_ARGS) {
        params.problems().add(params.at("command"), kind + " action: \"command\" must list 1 to " + MAX_COMMAND_ARGS
            + " strings");
        return Optional.empty();
      }
      return Optional.of(out);
    });
  }
}
