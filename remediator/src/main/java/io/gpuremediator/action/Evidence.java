package io.gpuremediator.action;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.EvidenceJob;
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
 * failed, timed out or gone, and its report stored off the node ({@code collect.store}). One still running within its
 * timeout holds the step back, and so does a store that cannot be reached yet; past the timeout (with a slack for the
 * Job controller to mark the deadline), the step goes on: evidence never blocks a repair for good. A report that could
 * not be stored is decided once, {@code evidence_not_stored}, naming where it should have gone and why not.
 *
 * @param waiting the wait while one still runs or its store is not reached; empty: the step may start
 * @param seen what each Job came to, for the step's note ("evidence job ns/name completed, stored at s3://..."); empty
 *     without collect
 * @param stored where each report with a store was stored; empty when none was
 * @param notStored what was not stored, and why; empty when every report with a store was stored
 */
record Evidence(Optional<StepStart.Wait> waiting, String seen, String stored, String notStored) {
  /** Time for the Job controller to mark a deadline after activeDeadlineSeconds passed. */
  private static final Duration SLACK = Duration.ofSeconds(30);

  /** Looks at the evidence Jobs of the run's episode that come before its step, and stores their reports. */
  static Evidence before(LongStepRun<?> run, String destruction) throws ClusterException {
    List<ActionSpec> actions = run.playbook().actions();
    List<String> seen = new ArrayList<>();
    List<String> stored = new ArrayList<>();
    List<String> notStored = new ArrayList<>();
    // A step of on_resolved comes after every step of actions; a step of actions after those before it.
    int before = run.episode().progress().releasing() ? actions.size() : Math.min(run.task().step(), actions.size());
    for (int i = 0; i < before; i++) {
      ActionSpec step = actions.get(i);
      if (step.evidenceTimeout().isEmpty() || step.dryRun()) {
        continue;
      }
      Duration timeout = step.evidenceTimeout().get();
      // The Job the step created, as the episode holds it (never a name derived again), read from the Jobs' watch.
      Optional<EvidenceJob> held = run.episode().evidenceJob(Episode.stepKey(run.episode().playbook(), false, i));
      if (held.isEmpty()) {
        gone("the evidence job of actions[" + i + "]", run.ports().evidenceStoreOf(step).map(s -> s.under(run.node())),
            seen, notStored);
        continue;
      }
      String name = held.get().name();
      String job = "evidence job " + held.get().job();
      Optional<String> where = run.ports().evidenceStoreOf(step).map(s -> s.where(run.node(), name));
      Optional<JobRun> found = run.ports().workloads().job(held.get().namespace(), name);
      if (found.isEmpty()) {
        gone(job, where, seen, notStored);
        continue;
      }
      Instant ends = found.get().created().plus(timeout).plus(SLACK);
      boolean within = run.now().isBefore(ends);
      if (found.get().state() == JobState.RUNNING && within) {
        return new Evidence(Optional.of(new StepStart.Wait(Reason.COLLECT_WAITING, destruction + " waits for " + job
            + " to finish (its timeout of " + Durations.format(timeout) + " ends at " + ends + ")", false)), "", "", "");
      }
      String state = job + " " + came(found.get().state(), timeout);
      if (where.isEmpty()) {
        seen.add(state);
        continue;
      }
      StoredReport.Outcome outcome = StoredReport.of(run, run.ports().evidenceStoreOf(step).get(), name, found.get().state());
      if (outcome instanceof StoredReport.Outcome.Retry r && within) {
        return new Evidence(Optional.of(new StepStart.Wait(Reason.COLLECT_WAITING, destruction + " waits to store the"
            + " report of " + job + " at " + where.get() + ": " + r.why() + " (asked again until " + ends + ")", false)),
            "", "", "");
      }
      if (outcome instanceof StoredReport.Outcome.Stored) {
        seen.add(state + ", stored at " + where.get());
        stored.add(state + ", its report stored at " + where.get());
      } else {
        String why = outcome instanceof StoredReport.Outcome.Retry r
            ? r.why() + " (until its timeout of " + Durations.format(timeout) + ")"
            : ((StoredReport.Outcome.NotStored) outcome).why();
        seen.add(state + ", not stored at " + where.get());
        notStored.add(state + ": its report was not stored at " + where.get() + ": " + why);
      }
    }
    return new Evidence(Optional.empty(), String.join("; ", seen), String.join("; ", stored),
        String.join("; ", notStored));
  }

  /** A Job that is not there: nothing of it was stored where its report should have gone. */
  private static void gone(String job, Optional<String> where, List<String> seen, List<String> notStored) {
    seen.add(job + " is gone");
    where.ifPresent(w -> notStored.add(job + " is gone: nothing stored at " + w));
  }

  private static String came(JobState state, Duration timeout) {
    return switch (state) {
      case SUCCEEDED -> "completed";
      case FAILED -> "failed";
      case TIMED_OUT -> "timed out";
      case RUNNING -> "did not finish within " + Durations.format(timeout) + ": not waited for";
    };
  }

  /** The step's start, its note with what the evidence came to, and the decisions about the reports stored or not. */
  StepStart.Go go(String note, LongStepRun<?> run) {
    List<StepStart.Notice> notices = new ArrayList<>();
    if (!stored.isEmpty()) {
      notices.add(new StepStart.Notice(Reason.EVIDENCE_STORED, stored));
    }
    if (!notStored.isEmpty()) {
      notices.add(new StepStart.Notice(Reason.EVIDENCE_NOT_STORED, notStored));
    }
    return new StepStart.Go(seen.isEmpty() ? note : note + " (" + seen + ")", Optional.empty(), notices);
  }
}
