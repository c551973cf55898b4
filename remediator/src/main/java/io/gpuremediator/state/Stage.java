package io.gpuremediator.state;

import java.util.Locale;
import java.util.Optional;

/**
 * Where an episode is in the closed loop (docs/episodes.md). Codes are stable
 * snake_case: the nodes API, the {@code remediator_episode_stage} gauge and dashboards key on them.
 */
public enum Stage {
  /** The immediate steps ran; a long step may be waiting (for a drain slot, say). */
  QUARANTINED,
  /** One GPU (or a few) of the node is fenced by a DeviceTaintRule; the node itself stays in service. */
  FENCED,
  /** Pods are being evicted or waited for. */
  DRAINING,
  /** The drain finished; the node waits for its alert to resolve. */
  DRAINED,
  /** A repair ({@code gpu_reset}, {@code reboot}) is under way. */
  REPAIRING,
  /** The diagnostic Job runs on the node. */
  DIAGNOSING,
  /** The drain timed out or failed; a human may retry it. */
  DRAIN_FAILED,
  /** The diagnostic Job failed, timed out or was lost; with no on_fail, the node stays out for a human. */
  DIAGNOSTICS_FAILED,
  /** A repair failed or timed out; with no on_fail, the node stays out for a human. */
  REPAIR_FAILED,
  /** A failed step escalated the episode to another playbook. */
  ESCALATED,
  /**
   * Another system owns the node's repair ({@code defer_to}): the episode waits, holding what it took, for the other
   * repairer to hand the node back (its sign gone: our quarantine lifted) or for the sign's deadline.
   */
  DEFERRED,
  /** Nothing more will happen automatically; a human decides. */
  NEEDS_HUMAN,
  /** A new node carrying the pre-flight taint proves itself (a diagnose Job, or waiting for a slot to run one). */
  PREFLIGHT,
  /** The pre-flight Job failed, timed out or was lost, with no on_fail: the node keeps the taint for a human. */
  PREFLIGHT_FAILED,
  /** The node's instance is marked unhealthy; its group replaces it, and the episode ends when the Node is gone. */
  REPLACING,
  /** The Node object is gone after a replacement (kept only in decisions). */
  REPLACED,
  /** The release steps ran: the node is back in service (kept only in decisions and history). */
  RELEASED;

  /** The stable snake_case code. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The stage with this code. */
  public static Optional<Stage> fromCode(String code) {
    for (Stage s : values()) {
      if (s.code().equals(code)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /** Whether the episode is over (released, or its node replaced): such a stage is only ever in decisions. */
  public boolean isOver() {
    return this == RELEASED || this == REPLACED;
  }

  /** Whether the episode waits for a human (release or retry) before anything more happens. */
  public boolean isFailed() {
    return this == DRAIN_FAILED || this == DIAGNOSTICS_FAILED || this == REPAIR_FAILED || this == PREFLIGHT_FAILED
        || this == NEEDS_HUMAN;
  }
}
