package io.gpuremediator.episode;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec.DrainMode;
import io.gpuremediator.playbook.ActionSpec.DrainSpec;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.workload.Eviction;
import io.gpuremediator.workload.PodInfo;
import io.gpuremediator.workload.Workloads;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One look at a drain: list the node's pods, leave alone what a drain never moves (DaemonSet and mirror
 * pods, skipped namespaces, finished pods), and evict the rest through the Eviction API. Stateless
 * between looks: everything it needs is the node's pods now and the task's start, so a restart resumes
 * it, and an eviction the API refused is simply asked again later, never forced past a budget.
 */
final class DrainStep {
  private static final int NAMES_SHOWN = 5;

  private final Workloads workloads;
  private final Duration retryDelay;

  DrainStep(Workloads workloads, Duration retryDelay) {
    this.workloads = workloads;
    this.retryDelay = retryDelay;
  }

  /** The pods the drain must see gone. */
  static boolean moves(PodInfo p, DrainSpec spec) {
    return !p.daemonSet() && !p.mirror() && !p.finished() && !spec.skipNamespaces().matcher(p.namespace()).find();
  }

  StepResult look(String node, DrainSpec spec, Task task, Instant now, Consumer<String> budgetBlocked)
      throws ClusterException {
    List<PodInfo> left = new ArrayList<>();
    for (PodInfo p : workloads.podsOn(node)) {
      if (moves(p, spec)) {
        left.add(p);
      }
    }
    if (left.isEmpty()) {
      return new StepResult.Succeeded("no pods left to move off " + node);
    }
    long terminating = left.stream().filter(PodInfo::terminating).count();
    Instant deadline = task.started().plus(spec.timeout());
    if (!now.isBefore(deadline)) {
      if (spec.mode() != DrainMode.EVICT_THEN_DELETE) {
        return new StepResult.Failed("drain timed out after " + io.gpuremediator.value.Durations.format(spec.timeout()) + " ("
            + spec.mode().code() + "): " + left.size() + " pods left: " + names(left));
      }
      for (PodInfo p : left) {
        if (!p.terminating()) {
          workloads.delete(p, grace(p, spec));
        }
      }
      return new StepResult.Running("timeout reached: deleting the " + left.size() + " pods left (" + names(left) + ")",
          Optional.empty());
    }
    if (spec.mode() == DrainMode.WAIT) {
      return new StepResult.Running("waiting for " + left.size() + " pods to finish (" + names(left) + "); nothing evicted"
          + " (mode wait)", Optional.empty());
    }
    int evicted = 0;
    Set<String> blockers = new LinkedHashSet<>();
    Optional<Instant> retryAt = Optional.empty();
    String throttled = "";
    for (PodInfo p : left) {
      if (p.terminating()) {
        continue;
      }
      Eviction answer = workloads.evict(p, grace(p, spec));
      if (answer instanceof Eviction.Granted || answer instanceof Eviction.Gone) {
        evicted++;
      } else if (answer instanceof Eviction.BudgetBlocked b) {
        String who = b.budget().orElse("of pod " + p.ref());
        if (blockers.add(who)) {
          budgetBlocked.accept("eviction of " + p.ref() + " blocked by PodDisruptionBudget " + who + ": " + b.message());
        }
        retryAt = earliest(retryAt, now.plus(b.retryAfter().orElse(retryDelay)));
      } else if (answer instanceof Eviction.Throttled t) {
        throttled = "; the API server is throttling evictions";
        retryAt = Optional.of(now.plus(t.retryAfter().orElse(retryDelay)));
      } else if (answer instanceof Eviction.SeveralBudgets several) {
        String text = "pod " + p.ref() + " matches more than one PodDisruptionBudget, which eviction does not support ("
            + several.message() + ")";
        if (spec.mode() == DrainMode.EVICT) {
          return new StepResult.Failed(text + "; not retried: fix the budgets, then retry or release");
        }
        return new StepResult.Running(text + "; not retried: waiting for the timeout to delete it", Optional.of(deadline));
      } else if (answer instanceof Eviction.Refused r) {
        return new StepResult.Failed("eviction of " + p.ref() + " refused (HTTP " + r.code() + "): " + r.message());
      }
      if (!throttled.isEmpty()) {
        break;
      }
    }
    StringBuilder note = new StringBuilder().append(left.size()).append(" pods left to move");
    if (evicted > 0 || terminating > 0) {
      note.append(" (").append(evicted).append(" evicted now, ").append(terminating).append(" terminating)");
    }
    if (!blockers.isEmpty()) {
      note.append("; waiting on PDB ").append(String.join(", ", blockers));
    }
    note.append(throttled);
    return new StepResult.Running(note.toString(), retryAt);
  }

  private static long grace(PodInfo p, DrainSpec spec) {
    long cap = spec.gracePeriod().toSeconds();
    return p.gracePeriodSeconds().map(own -> Math.min(own, cap)).orElse(cap);
  }

  private static Optional<Instant> earliest(Optional<Instant> a, Instant b) {
    return Optional.of(a.isPresent() && a.get().isBefore(b) ? a.get() : b);
  }

  private static String names(List<PodInfo> pods) {
    List<String> shown = pods.stream().limit(NAMES_SHOWN).map(PodInfo::ref).toList();
    return String.join(", ", shown) + (pods.size() > NAMES_SHOWN ? " and " + (pods.size() - NAMES_SHOWN) + " more" : "");
  }
}
