package io.gpuremediator.playbook;

import java.util.Optional;

/**
 * The spec of a long step whose failure may escalate the episode to another playbook, its {@code on_fail} (a GPU
 * reset, a reboot, diagnostics, the pre-flight gate).
 */
public interface RepairStepSpec extends LongStepSpec {
  /** The playbook a failure escalates to; empty: the episode stays out for a human. */
  Optional<String> onFail();

  @Override
  default Optional<String> escalatesTo() {
    return onFail();
  }
}
