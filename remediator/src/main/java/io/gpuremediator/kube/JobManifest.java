package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicy;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder;
import io.gpuremediator.workload.NodeJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A node Job as the API server is sent it, and what a pod says of the node's accelerators. A Job with a PriorityClass
 * (a sweep's) has a {@code podFailurePolicy} that ignores a pod failed by a disruption ({@code DisruptionTarget}: the
 * scheduler's preemption, a drain's eviction), so being preempted never reads as a failed diagnostic.
 */
final class JobManifest {
  /** The device plugins' accelerator resources, matched by prefix. */
  private static final List<String> ACCELERATOR_PREFIXES = List.of("nvidia.com/gpu", "nvidia.com/mig-", "amd.com/gpu",
      "aws.amazon.com/neuron");

  /** The exit code of a container that never started (containerd's StartError; tests/real/SOURCES.md). */
  static final int NEVER_STARTED = 128;

  private JobManifest() {}

  static Job of(NodeJob j) {
    List<Toleration> tolerations = new ArrayList<>();
    for (String key : j.tolerations()) {
      tolerations.add(new TolerationBuilder().withKey(key).withOperator("Exists").build());
    }
    List<EnvVar> env = new ArrayList<>();
    j.env().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(v -> env.add(new EnvVar(v.getKey(), v.getValue(), null)));
    return new JobBuilder()
        .withNewMetadata().withName(j.name()).withNamespace(j.namespace()).withLabels(j.labels()).endMetadata()
        .withNewSpec().withBackoffLimit(0).withActiveDeadlineSeconds(j.deadline().toSeconds())
        .withTtlSecondsAfterFinished((int) j.keep().toSeconds())
        .withPodFailurePolicy(j.priorityClass().map(p -> disruptionIgnored()).orElse(null))
        .withNewTemplate().withNewMetadata().withLabels(j.labels()).endMetadata()
        .withNewSpec().withNodeName(j.node()).withRestartPolicy("Never").withTolerations(tolerations)
        .withPriorityClassName(j.priorityClass().orElse(null))
        .withHostPID(j.hostPid() ? Boolean.TRUE : null)
        .withVolumes(JobVolumes.volumes(j.volumes()))
        .addNewContainer().withName(j.container()).withImage(j.image()).withCommand(j.command()).withEnv(env)
        .withSecurityContext(j.privileged() ? new SecurityContextBuilder().withPrivileged(true).build() : null)
        .withVolumeMounts(JobVolumes.mounts(j.volumes()))
        .endContainer()
        .endSpec().endTemplate().endSpec().build();
  }

  /**
   * A pod disrupted (preempted, evicted) is run again and counts against no backoff limit; a container that exits
   * non-zero fails the Job with reason {@code PodFailurePolicy}, so a failed diagnostic is told from a pod that never
   * ran it: the kubelet's admission refusing it, or a container that never started (containerd's StartError, exit
   * code {@value #NEVER_STARTED}: an image without the command), fail the Job with {@code BackoffLimitExceeded}.
   */
  private static PodFailurePolicy disruptionIgnored() {
    return new PodFailurePolicyBuilder().addNewRule().withAction("Ignore").addNewOnPodCondition()
        .withType("DisruptionTarget").withStatus("True").endOnPodCondition().endRule()
        .addNewRule().withAction("FailJob").withNewOnExitCodes().withOperator("NotIn").withValues(0, NEVER_STARTED).endOnExitCodes()
        .endRule().build();
  }

  /** The node the Job's pod is pinned to (its {@code nodeName}), if it is. */
  static Optional<String> node(Job job) {
    return Optional.ofNullable(job.getSpec()).map(s -> s.getTemplate()).map(t -> t.getSpec()).map(s -> s.getNodeName());
  }

  /** Whether a container of the pod requests or limits an accelerator, or the pod claims devices through DRA. */
  static boolean accelerators(Pod p) {
    if (p.getSpec() == null) {
      return false;
    }
    if (p.getSpec().getResourceClaims() != null && !p.getSpec().getResourceClaims().isEmpty()) {
      return true;
    }
    Stream<Container> containers = Stream.concat(Optional.ofNullable(p.getSpec().getContainers()).orElse(List.of()).stream(),
        Optional.ofNullable(p.getSpec().getInitContainers()).orElse(List.of()).stream());
    return containers.map(Container::getResources).filter(r -> r != null).anyMatch(JobManifest::accelerator);
  }

  private static boolean accelerator(ResourceRequirements r) {
    return Stream.of(r.getRequests(), r.getLimits()).filter(m -> m != null).flatMap(m -> m.entrySet().stream())
        .anyMatch(e -> ACCELERATOR_PREFIXES.stream().anyMatch(e.getKey()::startsWith) && nonZero(e.getValue()));
  }

  private static boolean nonZero(Quantity q) {
    return q != null && Quantity.getAmountInBytes(q).signum() > 0;
  }
}
