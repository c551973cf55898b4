package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;

/** An informer on our Jobs that tells which node a Job is pinned to whenever one changes or goes. */
final class JobWatch {
  private JobWatch() {}

  static AutoCloseable start(KubernetesClient client, String namespace, String label, Consumer<String> node) {
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
    return informer::stop;
  }
}
