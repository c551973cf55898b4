package io.gpuremediator.playbook;

/** When an action runs: while the alert fires ({@code actions}) or when it resolves ({@code on_resolved}). */
public enum Phase {
  /** The playbook's {@code actions}. */
  FIRING,
  /** The playbook's {@code on_resolved}. */
  RESOLVED
}
