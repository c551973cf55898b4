package io.gpuremediator.simcluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simapi.EmulatedApiServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The Job controller and kubelet of the simulated cluster, for the remediator's Jobs only (by their
 * {@code gpu-remediator.io/step} label). A diagnostic Job runs its pod on the node it is pinned to for a few seconds
 * (dcgmi diag -r 2 takes about two minutes on real GPUs), then completes, or fails with dcgmi's output in the pod's
 * log when the node is labelled {@value SimCluster#FAILS_DIAGNOSTICS} (with the GPU's index); a pre-flight Job likewise. A GPU
 * reset Job completes likewise (nvidia-smi -r takes seconds), and an evidence Job ({@code collect}) likewise, its log
 * standing in for a bug report, unless a kubelet of their own runs these Jobs' commands (simapi's JobKubelet, against
 * fakes of dcgmi, nvidia-smi and nvidia-bug-report.sh built from recorded outputs: {@link #runsForReal}). A reboot Job reboots its node as a kubelet shows it: NotReady at once, a new {@code status.nodeInfo.bootID}
 * {@value #BOOT_MILLIS} ms later, Ready again {@value #READY_MILLIS} ms after the reboot began; the Job itself fails
 * (its pod died with the node), which is what a real one does.
 */
final class JobController implements AutoCloseable {
  private static final String NAMESPACE = "gpu-remediator";
  private static final String STEP_LABEL = "gpu-remediator.io/step";
  /** A sweep's Job carries this label, and no step label: its diagnostic runs as a diagnose step's does. */
  private static final String SWEEP_LABEL = "gpu-remediator.io/sweep";
  private static final long RUN_MILLIS = 3_000;
  /** From the reboot to the new boot (a GPU server's firmware and kernel take minutes; the demo a few seconds). */
  private static final long BOOT_MILLIS = 2_500;
  private static final long READY_MILLIS = 4_500;

  private final KubernetesClient client;
  private final EmulatedApiServer server;
  private final Map<String, Long> seen = new ConcurrentHashMap<>();
  /** The bootID each reboot Job's node had before it ({@code <job>/before}). */
  private final Map<String, String> seenBoot = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sim-job-controller");
    t.setDaemon(true);
    return t;
  });

  private final boolean evidenceRunElsewhere;

  JobController(KubernetesClient client, EmulatedApiServer server, boolean evidenceRunElsewhere) {
    this.client = client;
    this.server = server;
    this.evidenceRunElsewhere = evidenceRunElsewhere;
  }

  /**
   * Whether the Job is one whose command runs for real when a kubelet of its own is given: evidence, a GPU reset, a
   * diagnostic, a pre-flight or a sweep.
   */
  static boolean runsForReal(Job job) {
    Map<String, String> labels = job.getMetadata().getLabels() == null ? Map.of() : job.getMetadata().getLabels();
    return List.of("collect", "gpu_reset", "diagnose", "preflight").contains(labels.getOrDefault(STEP_LABEL, ""))
        || labels.containsKey(SWEEP_LABEL);
  }

  void start() {
    timer.scheduleWithFixedDelay(this::tick, 500, 500, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      for (Job job : client.batch().v1().jobs().inNamespace(NAMESPACE).list().getItems()) {
        if (job.getStatus() != null && job.getStatus().getConditions() != null && !job.getStatus().getConditions().isEmpty()
            || evidenceRunElsewhere && runsForReal(job)) {
          continue;
        }
        long first = seen.computeIfAbsent(job.getMetadata().getName(), k -> System.currentTimeMillis());
        long ran = System.currentTimeMillis() - first;
        if ("reboot".equals(job.getMetadata().getLabels().get(STEP_LABEL))) {
          reboot(job, ran);
        } else if (ran >= RUN_MILLIS) {
          finish(job);
        }
      }
    } catch (RuntimeException e) {
      System.err.println("sim-job-controller: " + e);
    }
  }

  /** The node goes down, boots (a new bootID) and comes back Ready; the Job's pod died with it. */
  private void reboot(Job job, long ran) {
    String node = job.getSpec().getTemplate().getSpec().getNodeName();
    boolean booted = ran >= BOOT_MILLIS;
    boolean ready = ran >= READY_MILLIS;
    Node now = client.nodes().withName(node).get();
    String boot = now.getStatus().getNodeInfo().getBootID();
    String first = seenBoot.computeIfAbsent(job.getMetadata().getName() + "/before", k -> boot);
    String wanted = booted ? first.replaceAll("-boot-\\d+$", "") + "-boot-"
        + (Integer.parseInt(first.replaceAll(".*-boot-", "")) + 1) : first;
    boolean isReady = now.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")
        && c.getStatus().equals("True"));
    if (!wanted.equals(boot) || isReady != ready) {
      client.nodes().withName(node).editStatus(n -> {
        n.getStatus().getNodeInfo().setBootID(wanted);
        n.getStatus().getConditions().stream().filter(c -> c.getType().equals("Ready")).forEach(c -> {
          c.setStatus(ready ? "True" : "Unknown");
          c.setReason(ready ? "KubeletReady" : "NodeStatusUnknown");
          c.setMessage(ready ? "kubelet is posting ready status" : "Kubelet stopped posting node status.");
        });
        return n;
      });
    }
    if (ready) {
      job.setStatus(new JobStatusBuilder().addNewCondition().withType("Failed").withStatus("True")
          .withReason("BackoffLimitExceeded").endCondition().build());
      client.batch().v1().jobs().inNamespace(NAMESPACE).resource(job).updateStatus();
    }
  }

  private void finish(Job job) {
    String name = job.getMetadata().getName();
    String node = job.getSpec().getTemplate().getSpec().getNodeName();
    String step = job.getMetadata().getLabels().get(STEP_LABEL);
    Node n = node == null ? null : client.nodes().withName(node).get();
    boolean diagnoses = "diagnose".equals(step) || "preflight".equals(step);
    boolean fails = diagnoses && n != null && n.getMetadata().getLabels() != null
        && n.getMetadata().getLabels().containsKey(SimCluster.FAILS_DIAGNOSTICS);
    String pod = name + "-pod";
    client.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(pod).withNamespace(NAMESPACE)
        .addToLabels("job-name", name).endMetadata().withNewSpec().withNodeName(node).withRestartPolicy("Never")
        .addNewContainer().withName(step.replace('_', '-')).withImage("sim").endContainer().endSpec()
        .withNewStatus().withPhase(fails ? "Failed" : "Succeeded").endStatus().build()).create();
    server.log(NAMESPACE, pod, "collect".equals(step) ? "H4sIAAAAAAAAA+y9a3fbRpIw/Hl+RZ/M... (simulated: the base64 of nvidia-bug-report.log.gz)\n"
        : !diagnoses ? "GPU 00000000:1B:00.0 was successfully reset.\nAll done.\n" : fails
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
