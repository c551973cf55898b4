package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuremediator.workload.JobRun;
import io.gpuremediator.workload.JobState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * An informer on our Jobs (by the episode label) that tells which node a Job is pinned to whenever one changes or goes;
 * its store is the cache a look reads a step's Job from, so a running step's looks cost the API server nothing. A Job
 * the store lacks (the watch not yet synced, or the Job just created) is read from the API server instead.
 */
final class JobWatch implements AutoCloseable {
  private final String namespace;
  private final SharedIndexInformer<Job> informer;

  private JobWatch(String namespace, SharedIndexInformer<Job> informer) {
    this.namespace = namespace;
    this.informer = informer;
  }

  static JobWatch start(KubernetesClient client, String namespace, String label, Consumer<String> node) {
    SharedIndexInformer<Job> informer =
        client.batch().v1().jobs().inNamespace(namespace).withLabel(label).runnableInformer(0);
    informer.exceptionHandler((started, t) -> true);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Job job) {
        tell(job);
      }

      @Override
      public void onUpdate(Job old, Job job) {
        tell(job);
      }

      @Override
      public void onDelete(Job job, boolean finalStateUnknown) {
        tell(job);
      }

      private void tell(Job job) {
        String pinned = job.getSpec() == null || job.getSpec().getTemplate() == null
            || job.getSpec().getTemplate().getSpec() == null ? null : job.getSpec().getTemplate().getSpec().getNodeName();
        if (pinned != null) {
          node.accept(pinned);
        }
      }
    });
    informer.start();
    return new JobWatch(namespace, informer);
  }

  /** The namespace whose Jobs it watches. */
  String namespace() {
    return namespace;
  }

  /** The Job as the watch last saw it; empty when the watch has not synced or holds no Job of that name. */
  Optional<Job> cached(String name) {
    return informer.hasSynced() ? Optional.ofNullable(informer.getStore().getByKey(namespace + "/" + name))
        : Optional.empty();
  }

  /** How the Job ran, from its conditions; empty for none or one being deleted. */
  static Optional<JobRun> runOf(Job job) {
    if (job == null || job.getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty();
    }
    String stamped = job.getMetadata().getCreationTimestamp(); // every API server stamps it; none: old, a wait is over
    Instant created = stamped == null ? Instant.EPOCH : Instant.parse(stamped);
    List<JobCondition> conditions = job.getStatus() == null || job.getStatus().getConditions() == null ? List.of()
        : job.getStatus().getConditions();
    for (JobCondition c : conditions) {
      if ("True".equals(c.getStatus()) && "Complete".equals(c.getType())) {
        return Optional.of(new JobRun(JobState.SUCCEEDED, created));
      }
      if ("True".equals(c.getStatus()) && "Failed".equals(c.getType())) {
        return Optional.of(new JobRun("DeadlineExceeded".equals(c.getReason()) ? JobState.TIMED_OUT : JobState.FAILED,
            created, c.getReason()));
      }
    }
    return Optional.of(new JobRun(JobState.RUNNING, created));
  }

  @Override
  public void close() {
    informer.stop();
  }
}
