package io.gpuremediator.episode;

import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.workload.Eviction;
import io.gpuremediator.workload.JobRun;
import io.gpuremediator.workload.JobState;
import io.gpuremediator.workload.LabelledJob;
import io.gpuremediator.workload.NodeJob;
import io.gpuremediator.workload.PodInfo;
import io.gpuremediator.workload.Workloads;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Pods, budgets and Jobs in memory, with the API server's rules: a pod under a budget that allows no
 * disruption is not evicted (and each eviction granted is counted, so one past a budget would show),
 * a Job's name is unique. For the randomized tests, where thousands of steps must run in seconds.
 */
final class InMemoryWorkloads implements Workloads {
  private static final String STEP = "gpu-remediator.io/step";
  /** Pods by node; a pod name is unique in the fleet. */
  final Map<String, List<PodInfo>> pods = new HashMap<>();
  /** How many disruptions each budgeted pod's budget allows now. */
  final Map<String, Integer> budgetOf = new HashMap<>();
  final Map<String, JobState> jobs = new LinkedHashMap<>();
  final Map<String, String> jobNode = new HashMap<>();
  /** Each Job as created: when (by the clock), its labels and its deadline. */
  private final Map<String, NodeJob> specs = new HashMap<>();
  private final Map<String, Instant> created = new HashMap<>();
  /** Reboot Jobs created while an evidence Job of their episode still ran within its timeout: none may be. */
  final List<String> rebootsBeforeEvidence = new ArrayList<>();
  private final Clock clock;
  final Map<String, Integer> evictions = new HashMap<>();
  /** The node of every pod deleted (not evicted), in order. */
  final List<String> deletedOn = new ArrayList<>();
  /** The pods told why they were stopped ({@code namespace/name}), one entry per Event, in order. */
  final List<String> told = new ArrayList<>();
  int jobsCreated;

  /** Jobs created at the epoch: an evidence Job's wait is over at once. */
  InMemoryWorkloads() {
    this(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
  }

  /** Jobs created by this clock, as an API server stamps them. */
  InMemoryWorkloads(Clock clock) {
    this.clock = clock;
  }

  void pod(String node, String name, boolean budgeted) {
    pods.computeIfAbsent(node, n -> new ArrayList<>()).add(new PodInfo("ml", name, name, "Running", false, false, false,
        Optional.of(30L)));
    if (budgeted) {
      budgetOf.put(name, 0);
    }
  }

  @Override
  public synchronized List<PodInfo> podsOn(String node) {
    return List.copyOf(pods.getOrDefault(node, List.of()));
  }

  @Override
  public synchronized Eviction evict(PodInfo pod, long gracePeriodSeconds) {
    for (List<PodInfo> list : pods.values()) {
      if (list.removeIf(p -> p.name().equals(pod.name()) && !blocked(p))) {
        evictions.merge(pod.name(), 1, Integer::sum);
        budgetOf.computeIfPresent(pod.name(), (k, v) -> v - 1);
        return new Eviction.Granted();
      }
      if (list.stream().anyMatch(p -> p.name().equals(pod.name()))) {
        return new Eviction.BudgetBlocked(Optional.of("ml/pdb-" + pod.name()), "needs 1 healthy pod", Optional.empty());
      }
    }
    return new Eviction.Gone();
  }

  private boolean blocked(PodInfo p) {
    return budgetOf.getOrDefault(p.name(), 1) <= 0;
  }

  @Override
  public synchronized void recordPodEvent(PodInfo pod, String reason, String message, Instant time) {
    told.add(pod.ref());
  }

  @Override
  public synchronized void delete(PodInfo pod, long gracePeriodSeconds) {
    pods.forEach((node, list) -> {
      if (list.removeIf(p -> p.name().equals(pod.name()))) {
        deletedOn.add(node);
      }
    });
  }

  @Override
  public synchronized void createJob(NodeJob job) {
    if (!jobs.containsKey(job.name()) && !jobNode.containsKey(job.name())) {
      if ("reboot".equals(job.labels().get(STEP))) {
        specs.forEach((name, other) -> {
          if ("collect".equals(other.labels().get(STEP)) && jobs.get(name) == JobState.RUNNING
              && other.labels().get(EpisodeNames.JOB_EPISODE_LABEL).equals(job.labels().get(EpisodeNames.JOB_EPISODE_LABEL))
              && clock.instant().isBefore(created.get(name).plus(other.deadline()))) {
            rebootsBeforeEvidence.add(job.name() + " while " + name + " ran");
          }
        });
      }
      specs.put(job.name(), job);
      created.put(job.name(), clock.instant());
      jobs.put(job.name(), JobState.RUNNING);
      jobNode.put(job.name(), job.node());
      jobsCreated++;
    }
  }

  @Override
  public synchronized Optional<JobRun> job(String namespace, String name) {
    return Optional.ofNullable(jobs.get(name)).map(s -> new JobRun(s, created.get(name)));
  }

  @Override
  public synchronized List<LabelledJob> jobsLabelled(String namespace, String key) {
    return specs.values().stream().filter(j -> j.labels().containsKey(key) && jobs.containsKey(j.name()))
        .map(j -> new LabelledJob(j.name(), j.node(), j.labels(), new JobRun(jobs.get(j.name()), created.get(j.name())),
            false)).toList();
  }

  @Override
  public synchronized void deleteJob(String namespace, String name) {
    jobs.remove(name);
    jobNode.remove(name);
  }

  @Override
  public String logTail(String namespace, String job, int lines) {
    return "";
  }

  @Override
  public Optional<String> log(String namespace, String job, long limitBytes) {
    return Optional.empty();
  }

  @Override
  public AutoCloseable watchJobs(String namespace, String label, Consumer<String> node) {
    return () -> { };
  }
}
