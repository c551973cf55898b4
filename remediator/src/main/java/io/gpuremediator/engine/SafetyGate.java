package io.gpuremediator.engine;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.Playbook;
import java.util.Optional;

/**
 * The seam where fleet safety limits veto a remediation before anything is written. The engine asks
 * it for every firing alert that would act, dry-run included (so a dry-run names the limit that would
 * have blocked it).
 */
@FunctionalInterface
public interface SafetyGate {
  /** A gate that refuses nothing. */
  SafetyGate OPEN = (alert, playbook, node) -> Optional.empty();

  /** Why this remediation must not start, or empty when it may. */
  Optional<Refusal> check(Alert alert, Playbook playbook, NodeInfo node);

  /** A refusal: a stable reason code and a sentence for people. */
  record Refusal(io.gpuremediator.decision.Reason reason, String detail) {}
}
