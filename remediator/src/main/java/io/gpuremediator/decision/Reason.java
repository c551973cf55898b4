package io.gpuremediator.decision;

import java.util.Locale;

/**
 * Every reason code a decision can carry. Codes are stable snake_case: dashboards, alerts and
 * scripts key on them, so a code is never renamed.
 */
public enum Reason {
  /** The playbook's actions were applied. */
  ACTIONS_APPLIED(Outcome.APPLIED),
  /** Every action found the node already as wanted. */
  NO_CHANGE(Outcome.APPLIED),
  /** The playbook's on_resolved actions were applied. */
  RESOLVED_ACTIONS_APPLIED(Outcome.APPLIED),
  /** The global dry_run switch is on. */
  DRY_RUN_GLOBAL(Outcome.DRY_RUN),
  /** The matching playbook is dry-run. */
  DRY_RUN_PLAYBOOK(Outcome.DRY_RUN),
  /** Every action of the playbook is dry-run. */
  DRY_RUN_ACTION(Outcome.DRY_RUN),
  /** No playbook matches the alert's labels. */
  NO_PLAYBOOK(Outcome.IGNORED),
  /** The alert resolved and its playbook has no on_resolved: the node stays as it is for a human. */
  NO_ON_RESOLVED(Outcome.IGNORED),
  /** No label of the node_from chain yields a valid node name or a known InternalIP. */
  NODE_UNRESOLVED(Outcome.IGNORED),
  /** The named node does not exist. */
  NODE_NOT_FOUND(Outcome.IGNORED),
  /** The node does not match node_selector. */
  NODE_NOT_SELECTED(Outcome.IGNORED),
  /** The node carries gpu-remediator.io/exclude=true. */
  NODE_EXCLUDED(Outcome.IGNORED),
  /** A template rendered a value its Kubernetes field rejects; nothing was written. */
  TEMPLATE_INVALID(Outcome.FAILED),
  /** The node's ledger annotation cannot be read; we do not act on a node whose history we cannot trust. */
  NODE_STATE_UNREADABLE(Outcome.FAILED),
  /** The Kubernetes API failed transiently; Alertmanager is asked to retry. */
  KUBE_UNAVAILABLE(Outcome.FAILED),
  /** The Kubernetes API refused the change. */
  KUBE_REJECTED(Outcome.FAILED);

  private final Outcome outcome;

  Reason(Outcome outcome) {
    this.outcome = outcome;
  }

  /** The outcome this reason belongs to. */
  public Outcome outcome() {
    return outcome;
  }

  /** The stable snake_case code. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }
}
