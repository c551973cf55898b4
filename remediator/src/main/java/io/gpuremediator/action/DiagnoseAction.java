package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import io.gpuremediator.workload.DiagnosticJob;
import io.gpuremediator.workload.JobState;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/**
 * {@code diagnose: {image, command, timeout, on_fail}}: a long step, a diagnostic Job pinned to the node. Its name
 * follows from the episode, the step and the attempt ({@link EpisodeNames#jobName}), so creating it twice finds the
 * same Job: one Job per diagnose step. It passes only when the Job completes; a Job that fails, times out, or is gone
 * (deleted, or lost with its node) fails the step, which escalates to {@code on_fail} when it names a playbook.
 */
public final class DiagnoseAction implements ActionKind<DiagnoseAction.DiagnoseSpec>,
    LongStep<DiagnoseAction.DiagnoseSpec> {
  /**
   * Runs a diagnostic Job pinned to the node; passes when the Job completes.
   *
   * @param onFail the playbook an episode escalates to when diagnostics fail; empty: stay out for a human
   */
  public record DiagnoseSpec(String image, List<String> command, Duration timeout,
      Optional<String> onFail, boolean dryRun) implements ActionSpec {
    /** Copies the command. */
    public DiagnoseSpec {
      command = List.copyOf(command);
    }

    @Override
    public Optional<String> escalatesTo() {
      return onFail;
    }


    @Override
    public boolean isLongStep() {
      return true;
    }
  }

  private static final Duration MAX_TIMEOUT = Duration.ofDays(7);
  private static final int MAX_COMMAND_ARGS = 64;
  private static final int MAX_IMAGE_CHARS = 512;
  private static final int LOG_LINES = 20;
  /** Time for the Job controller to mark the deadline after activeDeadlineSeconds passed. */
  private static final Duration DEADLINE_SLACK = Duration.ofMinutes(2);
  private static final StepStages STAGES = new StepStages(Stage.DIAGNOSING, Optional.empty(), Stage.DIAGNOSTICS_FAILED,
      Reason.DIAGNOSE_STARTED, Reason.DIAGNOSTICS_PASSED, Reason.DIAGNOSTICS_FAILED);

  DiagnoseAction() {}

  @Override
  public Class<DiagnoseSpec> specType() {
    return DiagnoseSpec.class;
  }

  @Override
  public Set<Phase> phases() {
    return Set.of(Phase.FIRING, Phase.RESOLVED);
  }

  @Override
  public Optional<DiagnoseSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> image = params.requiredString("image").filter(i -> {
      if (i.isBlank() || i.length() > MAX_IMAGE_CHARS || i.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
        params.problems().add(params.at("image"), "diagnose action: \"image\" must be an image reference without spaces, "
            + "at most " + MAX_IMAGE_CHARS + " characters");
        return false;
      }
      return true;
    });
    Optional<List<String>> command = command(params);
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(30), MAX_TIMEOUT, name());
    Optional<String> onFail = params.string("on_fail").filter(name -> {
      Optional<String> invalid = FieldRule.LABEL_VALUE.check(name);
      if (name.isEmpty() || invalid.isPresent()) {
        params.problems().add(params.at("on_fail"), "diagnose action: \"on_fail\" must name a playbook");
        return false;
      }
      return true;
    });
    boolean onFailBad = params.has("on_fail") && onFail.isEmpty();
    if (image.isEmpty() || command.isEmpty() || timeout.isEmpty() || onFailBad) {
      return Optional.empty();
    }
    return Optional.of(new DiagnoseSpec(image.get(), command.get(), timeout.get(), onFail, dryRun));
  }

  private static Optional<List<String>> command(MapReader params) {
    if (!params.has("command")) {
      params.problems().add(params.node(), "diagnose action: missing required key \"command\"");
      params.take("command");
      return Optional.empty();
    }
    return params.list("command").flatMap(items -> {
      List<String> out = new ArrayList<>();
      for (Node item : items) {
        params.scalar(item, "command").ifPresent(out::add);
      }
      if (out.size() != items.size() || out.isEmpty() || out.size() > MAX_COMMAND_ARGS) {
        params.problems().add(params.at("command"), "diagnose action: \"command\" must list 1 to " + MAX_COMMAND_ARGS
            + " strings");
        return Optional.empty();
      }
      return Optional.of(out);
    });
  }

  /** Applied to a draft it only says what will happen; the episode engine runs the Job in the background. */
  @Override
  public Step prepare(DiagnoseSpec spec, TemplateContext ctx) {
    String what = "run " + String.join(" ", spec.command()) + " (" + spec.image() + ") as a Job on " + ctx.node()
        + " (timeout " + Durations.format(spec.timeout()) + "; on failure: "
        + spec.onFail().map(p -> "escalate to " + p).orElse("stay out of service for a human") + ")";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  @Override
  public Optional<LongStep<DiagnoseSpec>> longStep() {
    return Optional.of(this);
  }

  @Override
  public StepStages stages() {
    return STAGES;
  }

  @Override
  public StepStart start(LongStepRun<DiagnoseSpec> run) {
    return new StepStart.Go("creating the diagnostic job", Optional.empty());
  }

  @Override
  public boolean retriesThroughStart() {
    return false;
  }

  @Override
  public StepResult look(LongStepRun<DiagnoseSpec> run) throws ClusterException {
    String namespace = run.ports().jobNamespace();
    Task task = run.task();
    if (task.handle().isEmpty()) {
      String name = EpisodeNames.jobName("gpu-diag-", run.node(), run.episode(), task.step(), task.started(), task.attempt());
      create(run, name);
      String job = namespace + "/" + name;
      return new StepResult.Started(name, "diagnostic job " + job + " created", "diagnostic job " + job + " created on "
          + run.node() + " (" + String.join(" ", run.spec().command()) + ")");
    }
    String job = namespace + "/" + task.handle();
    Optional<JobState> state = run.ports().workloads().job(namespace, task.handle());
    if (state.isEmpty()) {
      return failed("diagnostic job " + job + " is gone (deleted, or lost with its node): not passed");
    }
    Duration timeout = run.spec().timeout();
    return switch (state.get()) {
      case SUCCEEDED -> new StepResult.Succeeded("diagnostic job " + job + " completed");
      case RUNNING -> run.now().isAfter(task.started().plus(timeout).plus(DEADLINE_SLACK))
          ? failed("diagnostic job " + job + " did not finish within " + Durations.format(timeout))
          : new StepResult.Running("diagnostic job " + job + " running", Optional.empty());
      case FAILED -> failed("diagnostic job " + job + " failed" + tail(run));
      case TIMED_OUT -> failed("diagnostic job " + job + " timed out after " + Durations.format(timeout) + tail(run));
    };
  }

  private static StepResult failed(String why) {
    return new StepResult.Failed(Reason.DIAGNOSTICS_FAILED, why);
  }

  /** Creates the Job (idempotent: its name follows from the episode, step and start), tolerating the playbook's taints. */
  private static void create(LongStepRun<DiagnoseSpec> run, String name) throws ClusterException {
    List<String> tolerations = new ArrayList<>();
    tolerations.add("node.kubernetes.io/unschedulable");
    ActionRegistry.taintKeys(run.playbook().actions()).stream().filter(k -> !tolerations.contains(k)).forEach(tolerations::add);
    DiagnoseSpec spec = run.spec();
    run.ports().workloads().createJob(new DiagnosticJob(run.ports().jobNamespace(), name, run.node(), spec.image(),
        spec.command(), spec.timeout(), Map.of(EpisodeNames.JOB_EPISODE_LABEL, EpisodeNames.episodeHash(run.node(),
            run.episode()), NodeKeys.DOMAIN + "step", "diagnose"), tolerations));
  }

  private static String tail(LongStepRun<DiagnoseSpec> run) throws ClusterException {
    String log = run.ports().workloads().logTail(run.ports().jobNamespace(), run.task().handle(), LOG_LINES).strip();
    return log.isEmpty() ? " (no log)" : "; log tail: " + (log.length() > 1500 ? "..." + log.substring(log.length() - 1500) : log);
  }
}
