package io.gpuremediator.testing;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/** The Job controller, played by a test: the service's Jobs live in its namespace, labelled with their step. */
public final class Jobs {
  private static final String NAMESPACE = "gpu-remediator";

  private Jobs() {}

  /** Waits for an unfinished Job of the step ({@code gpu-remediator.io/step}), then completes it; returns it as it was. */
  public static Job complete(KubernetesClient client, String step) {
    Job[] found = new Job[1];
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      found[0] = client.batch().v1().jobs().inNamespace(NAMESPACE).withLabel("gpu-remediator.io/step", step).list().getItems()
          .stream().filter(j -> j.getStatus() == null || j.getStatus().getConditions() == null
              || j.getStatus().getConditions().isEmpty()).findFirst().orElse(null);
      return found[0] != null;
    });
    Job job = found[0];
    job.setStatus(new JobStatusBuilder().addNewCondition().withType("Complete").withStatus("True").endCondition().build());
    client.batch().v1().jobs().inNamespace(NAMESPACE).resource(job).updateStatus();
    return job;
  }
}
