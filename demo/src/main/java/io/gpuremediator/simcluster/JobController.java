package io.gpuremediator.simcluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simapi.EmulatedApiServer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The Job controller and kubelet of the simulated cluster, for the remediator's diagnostic Jobs only: a Job
 * runs its pod on the node it is pinned to for a few seconds (dcgmi diag -r 2 takes about two minutes on
 * real GPUs), then completes, or fails with dcgmi's output in the pod's log when the node is labelled
 * {@value SimCluster#FAILS_DIAGNOSTICS}=fail.
 */
final class JobController implements AutoCloseable {
  private static final String NAMESPACE = "gpu-remediator";
  private static final long RUN_MILLIS = 3_000;

  private final KubernetesClient client;
  private final EmulatedApiServer server;
  private final Map<String, Long> seen = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sim-job-controller");
    t.setDaemon(true);
    return t;
  });

  JobController(KubernetesClient client, EmulatedApiServer server) {
    this.client = client;
    this.server = server;
  }

  void start() {
    timer.scheduleWithFixedDelay(this::tick, 500, 500, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      for (Job job : client.batch().v1().jobs().inNamespace(NAMESPACE).list().getItems()) {
        if (job.getStatus() != null && job.getStatus().getConditions() != null && !job.getStatus().getConditions().isEmpty()) {
          continue;
        }
        long first = seen.computeIfAbsent(job.getMetadata().getName(), k -> System.currentTimeMillis());
        if (System.currentTimeMillis() - first >= RUN_MILLIS) {
          finish(job);
        }
      }
    } catch (RuntimeException e) {
      System.err.println("sim-job-controller: " + e);
    }
  }

  private void finish(Job job) {
    String name = job.getMetadata().getName();
    String node = job.getSpec().getTemplate().getSpec().getNodeName();
    Node n = node == null ? null : client.nodes().withName(node).get();
    boolean fails = n != null && n.getMetadata().getLabels() != null
        && "fail".equals(n.getMetadata().getLabels().get(SimCluster.FAILS_DIAGNOSTICS));
    String pod = name + "-pod";
    client.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(pod).withNamespace(NAMESPACE)
        .addToLabels("job-name", name).endMetadata().withNewSpec().withNodeName(node).withRestartPolicy("Never")
        .addNewContainer().withName("diagnose").withImage("dcgm").endContainer().endSpec()
        .withNewStatus().withPhase(fails ? "Failed" : "Succeeded").endStatus().build()).create();
    server.log(NAMESPACE, pod, fails
        ? "Deployment: Pass\nMemory: Fail - GPU 2: DCGM_FR_FAULTY_MEMORY uncorrectable errors during memtest\nexit 226\n"
        : "Deployment: Pass\nMemory: Pass\nDiagnostic: Pass\nPCIe: Pass\n");
    job.setStatus(new JobStatusBuilder().addNewCondition().withType(fails ? "Failed" : "Complete").withStatus("True")
        .withReason(fails ? "BackoffLimitExceeded" : null).endCondition().build());
    client.batch().v1().jobs().inNamespace(NAMESPACE).resource(job).updateStatus();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
