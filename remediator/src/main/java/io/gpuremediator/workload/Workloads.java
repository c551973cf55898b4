package io.gpuremediator.workload;

import io.gpuremediator.node.ClusterException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** The port to the pods and Jobs on a node. Synchronous, thread-safe; every failure is a {@link ClusterException}. */
public interface Workloads {
  /** Every pod bound to the node, in every namespace. */
  List<PodInfo> podsOn(String node) throws ClusterException;

  /** Asks the Eviction API (policy/v1) to evict the pod, giving it at most {@code gracePeriodSeconds} to stop. */
  Eviction evict(PodInfo pod, long gracePeriodSeconds) throws ClusterException;

  /**
   * Records a Warning Event about the pod (in its namespace, naming its uid), for whoever owns the workload to read
   * why it was stopped.
   */
  void recordPodEvent(PodInfo pod, String reason, String message, Instant time) throws ClusterException;

  /** Deletes the pod (no PodDisruptionBudget check), giving it at most {@code gracePeriodSeconds}; gone already is fine. */
  void delete(PodInfo pod, long gracePeriodSeconds) throws ClusterException;

  /** Creates the Job; one that already exists under this name is left as it is (the call is idempotent). */
  void createJob(NodeJob job) throws ClusterException;

  /**
   * The Job's state and age, or empty when no Job of this name exists (lost or deleted): from the watch of
   * {@link #watchJobs} where it holds the Job, else from the API server.
   */
  Optional<JobRun> job(String namespace, String name) throws ClusterException;

  /** The Jobs of {@code namespace} that carry the label {@code key} (any value), none being deleted. */
  List<LabelledJob> jobsLabelled(String namespace, String key) throws ClusterException;

  /** Deletes the Job and its pods (in the background); gone already is fine. */
  void deleteJob(String namespace, String name) throws ClusterException;

  /** The last {@code lines} lines of the log of the Job's pod, or empty when there is none to read. */
  String logTail(String namespace, String job, int lines) throws ClusterException;

  /** The log of the Job's pod, its first {@code limitBytes} bytes at most, or empty when there is none to read. */
  Optional<String> log(String namespace, String job, long limitBytes) throws ClusterException;

  /**
   * Watches the Jobs of {@code namespace} that carry {@code label}, and tells {@code node} the node a Job is pinned to
   * whenever one changes or goes (on the watch's thread: keep it quick); while it runs, {@link #job} reads from it.
   * Closing the result stops the watch.
   */
  AutoCloseable watchJobs(String namespace, String label, Consumer<String> node);

  /**
   * Watches the pods on {@code node} and calls {@code changed} whenever one goes or finishes (on the watch's thread: keep
   * it quick), so a drain sees its last pod leave when it leaves. Closing the result stops the watch. Without a watch
   * (the default), the drain looks again on the loop's timer.
   */
  default AutoCloseable watchPodsOn(String node, Runnable changed) {
    return () -> { };
  }
}
