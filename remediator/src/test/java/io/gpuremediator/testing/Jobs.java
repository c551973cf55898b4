package io.gpuremediator.testing;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/** The Job controller, played by a test: the service's Jobs live in its namespace, labelled with their step. */
public final class Jobs {
  private static final String NAMESPACE = "gpu-remediator";

  private Jobs() {}

  /** Waits for an unfinished Job of the step ({@code gpu-remediator.io/step}), then completes it; returns it as it was. */
  public static Job complete(KubernetesClient client, String step) {
    Job job = await(client, step, j -> j.getStatus() == null || j.getStatus().getConditions() == null
        || j.getStatus().getConditions().isEmpty());
    job.setStatus(new JobStatusBuilder().addNewCondition().withType("Complete").withStatus("True").endCondition().build());
    client.batch().v1().jobs().inNamespace(NAMESPACE).resource(job).updateStatus();
    return job;
  }

  /** Waits for the step's Job on the node, then deletes it, as a human would. */
  public static void delete(KubernetesClient client, String step, String node) {
    Job job = await(client, step, j -> node.equals(j.getSpec().getTemplate().getSpec().getNodeName()));
    client.batch().v1().jobs().inNamespace(NAMESPACE).resource(job).delete();
  }

  /** The first Job of the step that {@code which} picks, once there is one (20 s at most). */
  private static Job await(KubernetesClient client, String step, Predicate<Job> which) {
    Job[] found = new Job[1];
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
      found[0] = client.batch().v1().jobs().inNamespace(NAMESPACE).withLabel("gpu-remediator.io/step", step).list()
          .getItems().stream().filter(which).findFirst().orElse(null);
      return found[0] != null;
    });
    return found[0];
  }
}
