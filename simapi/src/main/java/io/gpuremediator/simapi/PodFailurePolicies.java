package io.gpuremediator.simapi;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnExitCodesRequirement;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyRule;
import java.util.List;
import java.util.Optional;

/**
 * A Job's {@code podFailurePolicy} as the Job controller applies it to a pod whose container exited non-zero
 * (kubernetes pkg/controller/job/pod_failure_policy.go): the rules in order, the first that matches decides; an
 * {@code onExitCodes} rule matches the container's exit code by {@code In} or {@code NotIn} its values (a container that
 * exited 0 is never matched); a rule with an action it does not know is skipped. A matching {@code FailJob} fails the
 * Job with reason {@code PodFailurePolicy} and the controller's message; a pod condition rule never matches here (a pod
 * that exits has no DisruptionTarget condition).
 */
final class PodFailurePolicies {
  /** The reason of the Job's Failed (and FailureTarget) condition when a FailJob rule matched. */
  static final String REASON = "PodFailurePolicy";

  private PodFailurePolicies() {}

  /** The Failed condition's message when a FailJob rule matches the container's exit; empty otherwise. */
  static Optional<String> failJob(Job job, String container, String namespace, String pod, int exit) {
    if (exit == 0 || job.getSpec().getPodFailurePolicy() == null) {
      return Optional.empty();
    }
    List<PodFailurePolicyRule> rules = job.getSpec().getPodFailurePolicy().getRules();
    for (int i = 0; rules != null && i < rules.size(); i++) {
      PodFailurePolicyRule r = rules.get(i);
      if (!List.of("FailJob", "Ignore", "Count", "FailIndex").contains(r.getAction()) || !matches(r.getOnExitCodes(),
          container, exit)) {
        continue;
      }
      return "FailJob".equals(r.getAction()) ? Optional.of("Container " + container + " for pod " + namespace + "/" + pod
          + " failed with exit code " + exit + " matching FailJob rule at index " + i) : Optional.empty();
    }
    return Optional.empty();
  }

  private static boolean matches(PodFailurePolicyOnExitCodesRequirement codes, String container, int exit) {
    if (codes == null || codes.getContainerName() != null && !codes.getContainerName().equals(container)) {
      return false;
    }
    boolean in = codes.getValues() != null && codes.getValues().contains(exit);
    return "In".equals(codes.getOperator()) ? in : "NotIn".equals(codes.getOperator()) && !in;
  }
}
