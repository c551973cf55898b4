package io.gpuremediator.action;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.workload.PodInfo;
import java.util.List;

/**
 * Tells the workload: each pod a step evicts or stops (a drain, a fence's eviction of the GPU's holders, a reset's pause
 * of the GPU Operator's clients) gets a Warning Event in its own namespace, naming the node, the GPU, the alert and the
 * episode, so its owner (a person, Kueue, JobSet's controller) can tell a hardware eviction from a job failure. An
 * Event that cannot be written is a warning Event on the node (once per message), and the step goes on: the node's
 * safety never waits on a notice.
 */
final class PodNotices {
  /** The Event's reason: a stable word a controller can watch for. */
  static final String REASON = "GpuRemediatorEvicted";
  /** The alert label naming the GPU by its UUID, as dcgm-exporter writes it. */
  private static final String UUID_LABEL = "UUID";

  private PodNotices() {}

  /**
   * The GPU an episode is about: the GPUs it fenced, else its alert's GPU UUID, else the node's GPUs when the alert names
   * none.
   */
  static String gpuOf(LongStepRun<?> run) {
    List<String> fenced = run.episode().fenced().stream().map(FencedGpu::uuid).toList();
    if (!fenced.isEmpty()) {
      return "GPU " + String.join(", GPU ", fenced);
    }
    String uuid = run.episode().labels().getOrDefault(UUID_LABEL, "");
    return uuid.isEmpty() ? "every GPU of the node" : "GPU " + uuid;
  }

  /** Records the Event on {@code pod}: {@code what} it was ("evicted by a drain"), about {@code gpu}. */
  static void tell(LongStepRun<?> run, PodInfo pod, String what, String gpu) {
    String message = pod.ref() + " " + what + " on node " + run.node() + " by gpu-remediator: " + gpu + ", alert "
        + run.episode().alertname() + " (fingerprint " + run.episode().fingerprint() + ", startsAt "
        + run.episode().startsAt() + "), episode " + EpisodeNames.episodeHash(run.node(), run.episode()) + " of playbook "
        + run.playbook().name() + ": a hardware fault, not the job's own failure";
    try {
      run.ports().workloads().recordPodEvent(pod, REASON, message, run.now());
    } catch (ClusterException e) {
      run.warn().accept("PodEventNotRecorded", "the Event telling " + pod.ref() + " why it was stopped was not recorded: "
          + e.getMessage());
    }
  }
}
