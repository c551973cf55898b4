package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.value.Durations;
import io.gpuremediator.workload.JobRun;
import io.gpuremediator.workload.JobState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a destructive step (a reboot, a replacement) finds of its episode's evidence Jobs before it starts: the
 * {@code collect} steps before it in the playbook's actions (all of them, for a step of on_resolved), each finished,
 * failed, timed out or gone. One still running within its timeout holds the step back; past it (with a slack for the
 * Job controller to mark the deadline), the step goes on: evidence never blocks a repair for good.
 *
 * @param waiting the wait while one still runs; empty: the step may start
 * @param seen what each Job came to, for the step's note ("evidence job ns/name completed"); empty without collect
 */
record Evidence(Optional<StepStart.Wait> waiting, String seen) {
  /** Time for the Job controller to mark a deadline after activeDeadlineSeconds passed. */
  private static final Duration SLACK = Duration.ofSeconds(30);

  /** Looks at the evidence Jobs of the run's episode that come before its step. */
  static Evidence before(LongStepRun<?> run, String destruction) throws ClusterException {
    List<ActionSpec> actions = run.playbook().actions();
    List<String> seen = new ArrayList<>();
    String namespace = run.ports().jobNamespace();
    // A step of on_resolved comes after every step of actions; a step of actions after those before it.
    int before = run.episode().progress().releasing() ? actions.size() : Math.min(run.task().step(), actions.size());
    for (int i = 0; i < before; i++) {
      ActionSpec step = actions.get(i);
      if (step.evidenceTimeout().isEmpty() || step.dryRun()) {
        continue;
      }
      Duration timeout = step.evidenceTimeout().get();
      String name = EpisodeNames.evidenceJobName(run.node(), run.episode(), i);
      String job = "evidence job " + namespace + "/" + name;
      Optional<JobRun> found = run.ports().workloads().job(namespace, name);
      if (found.isEmpty()) {
        seen.add(job + " is gone");
        continue;
      }
      Instant ends = found.get().created().plus(timeout).plus(SLACK);
      if (found.get().state() == JobState.RUNNING && run.now().isBefore(ends)) {
        return new Evidence(Optional.of(new StepStart.Wait(Reason.COLLECT_WAITING, destruction + " waits for " + job
            + " to finish (its timeout of " + Durations.format(timeout) + " ends at " + ends + ")", false)), "");
      }
      seen.add(job + " " + switch (found.get().state()) {
        case SUCCEEDED -> "completed";
        case FAILED -> "failed";
        case TIMED_OUT -> "timed out";
        case RUNNING -> "did not finish within " + Durations.format(timeout) + ": not waited for";
      });
    }
    return new Evidence(Optional.empty(), String.join("; ", seen));
  }

  /** The step's note with what the evidence came to, when there was any. */
  String after(String note) {
    return seen.isEmpty() ? note : note + " (" + seen + ")";
  }
}
