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
  /** This alert episode (fingerprint + startsAt) was already handled: a retry, re-send or HA duplicate. */
  DUPLICATE_EPISODE(Outcome.IGNORED),
  /** An operator paused remediation. */
  PAUSED(Outcome.SUPPRESSED),
  /** The storm breaker is open: too many nodes fired at once; a human must look. */
  BREAKER_OPEN(Outcome.SUPPRESSED),
  /** Quarantining this node would take more nodes out of service than max_unavailable allows. */
  MAX_UNAVAILABLE(Outcome.SUPPRESSED),
  /**
   * Quarantining this node would take more nodes of its failure domain (a zone, a rack, an NVLink clique) out of service
   * than its safety.domains budget allows; the decision names the label, the value, used and allowed.
   */
  DOMAIN_BUDGET_EXHAUSTED(Outcome.SUPPRESSED),
  /**
   * The node's failure domain value holds an incident (safety.domains[].incident: more of its nodes faulting together
   * than allowed): no new episode starts in it until a human resets it.
   */
  DOMAIN_INCIDENT(Outcome.SUPPRESSED),
  /** The fleet's or the playbook's rate of quarantine starts is used up for the window. */
  RATE_LIMITED(Outcome.SUPPRESSED),
  /** The same playbook released this node too recently. */
  COOLDOWN(Outcome.SUPPRESSED),
  /** The alert does not satisfy accept_alerts (another cluster's, behind a shared Alertmanager): nothing is touched. */
  FOREIGN_ALERT(Outcome.IGNORED),
  /** No playbook matches the alert's labels. */
  NO_PLAYBOOK(Outcome.IGNORED),
  /** The alert resolved and its playbook has no on_resolved: the node stays as it is for a human. */
  NO_ON_RESOLVED(Outcome.IGNORED),
  /**
   * A resolution whose {@code startsAt} is not the active episode's: it ends another firing of the alert (a late one of
   * an older firing, or a forged one), so nothing is released.
   */
  RESOLVED_OTHER_EPISODE(Outcome.IGNORED),
  /** No label of the node_from chain yields a valid node name or a known InternalIP. */
  NODE_UNRESOLVED(Outcome.IGNORED),
  /** The named node does not exist. */
  NODE_NOT_FOUND(Outcome.IGNORED),
  /** The node does not match node_selector. */
  NODE_NOT_SELECTED(Outcome.IGNORED),
  /**
   * The node shows a sign that another system owns its repair ({@code defer_to}: a condition, a taint, a label): no new
   * episode (a sign with a deadline lets the episode quarantine the node first); a running one is deferred before its
   * next long step, the node as it is, until the other repairer hands it back or the deadline passes.
   */
  DEFERRED(Outcome.IGNORED),
  /** The other repairer's deadline passed with no repair seen ({@code then: take_over}): our episode goes on. */
  DEFERRAL_TAKEN_OVER(Outcome.APPLIED),
  /** The other repairer's deadline passed with no repair seen ({@code then: page}): people were paged, once. */
  DEFERRAL_PAGED(Outcome.FAILED),
  /**
   * The other repairer finished (its sign gone, after a reboot or not) or replaced the node: our quarantine was lifted
   * by the episode's release steps, and the episode is over, {@code closed_by="other"}.
   */
  HANDED_BACK(Outcome.APPLIED),
  /** The node carries gpu-remediator.io/exclude=true. */
  NODE_EXCLUDED(Outcome.IGNORED),
  /** A template rendered a value its Kubernetes field rejects; nothing was written. */
  TEMPLATE_INVALID(Outcome.FAILED),
  /** The node's ledger annotation cannot be read; we do not act on a node whose history we cannot trust. */
  NODE_STATE_UNREADABLE(Outcome.FAILED),
  /**
   * The node's ledger annotation is not ours: its signature does not verify, or it is unsigned where every ledger of
   * ours is signed. Whoever can write the Node wrote it; nothing is done on the node and nothing it names is deleted.
   */
  LEDGER_UNTRUSTED(Outcome.SUPPRESSED),
  /**
   * The node's ledger has no room for a new episode ({@code ledger.max_episodes_per_node}, {@code ledger.max_bytes}):
   * none is opened, and the node keeps the quarantine its episodes hold. Past the API server's 256 KiB of annotations
   * the node could never be written again.
   */
  LEDGER_FULL(Outcome.SUPPRESSED),
  /** The fleet safety state could not be read or written; nothing is started (Alertmanager retries). */
  SAFETY_STATE_UNAVAILABLE(Outcome.FAILED),
  /** Leadership lapsed before the write; nothing was written, and Alertmanager is asked to retry (at the leader). */
  NOT_LEADER(Outcome.FAILED),
  /** The Kubernetes API failed transiently; Alertmanager is asked to retry. */
  KUBE_UNAVAILABLE(Outcome.FAILED),
  /** The Kubernetes API refused the change. */
  KUBE_REJECTED(Outcome.FAILED),

  // The closed loop: each stage change of an episode is a decision of its own.
  /** The alert resolved, but the release waits for an earlier step (a drain under way, a failed step). */
  RELEASE_PENDING(Outcome.APPLIED),
  /** Steps after a long step ran, in the background. */
  STEPS_APPLIED(Outcome.APPLIED),
  /** The drain started. */
  DRAIN_STARTED(Outcome.APPLIED),
  /** Every pod to move is gone from the node. */
  DRAINED(Outcome.APPLIED),
  /** The drain timed out, or a pod cannot be evicted; the node stays out for a human. */
  DRAIN_FAILED(Outcome.FAILED),
  /** More nodes are draining than safety.max_draining allows; this one waits in stage quarantined. */
  MAX_DRAINING(Outcome.SUPPRESSED),
  /** The diagnostic Job was created on the node. */
  DIAGNOSE_STARTED(Outcome.APPLIED),
  /** The diagnostic Job completed. */
  DIAGNOSTICS_PASSED(Outcome.APPLIED),
  /** The diagnostic Job failed, timed out or was lost; the node stays out of service. */
  DIAGNOSTICS_FAILED(Outcome.FAILED),
  /**
   * The evidence Job ({@code collect}) was created on the node: it runs beside the drain, and a reboot or replacement of
   * the episode waits for it to finish or time out.
   */
  COLLECT_STARTED(Outcome.APPLIED),
  /** A reboot or replacement waits for the episode's evidence Job to finish or time out before it starts. */
  COLLECT_WAITING(Outcome.SUPPRESSED),
  /**
   * The report an evidence Job gathered could not be stored off the node ({@code collect.store}) before a reboot or
   * replacement: the store refused it, stayed unreachable until the Job's timeout, or the Job left no report.
   */
  EVIDENCE_NOT_STORED(Outcome.FAILED),
  /** The report an evidence Job gathered was stored off the node ({@code collect.store}), before a reboot or replacement. */
  EVIDENCE_STORED(Outcome.APPLIED),
  /**
   * One GPU was fenced ({@code fence_gpu}): a DeviceTaintRule on it, the node schedulable, its other GPUs' pods left
   * running; the decision names the GPU, the device and the rule.
   */
  GPU_FENCED(Outcome.APPLIED),
  /** The episode's DeviceTaintRules were deleted ({@code unfence_gpu}): its GPUs are back in service. */
  GPU_UNFENCED(Outcome.APPLIED),
  /**
   * The node publishes no device for the alert's GPU in its DRA driver's ResourceSlices (a device-plugin node, or the
   * driver not running): nothing was fenced, and on_fail (the node path) decides what next.
   */
  GPU_NOT_PUBLISHED(Outcome.FAILED),
  /**
   * The node already has {@code safety.max_fenced_per_node} GPUs fenced: this GPU is not fenced, and on_fail (the node
   * path) decides what next.
   */
  FENCED_PER_NODE(Outcome.SUPPRESSED),
  /**
   * Fencing this GPU would leave more GPUs fenced or on unavailable nodes than {@code safety.max_unavailable_gpus}
   * allows; the fence waits for a place.
   */
  GPU_BUDGET_EXHAUSTED(Outcome.SUPPRESSED),
  /**
   * The GPU limits need a node's GPU count that nothing gives (no ResourceSlice of the DRA driver, no GPU Feature
   * Discovery count, no device plugin capacity): never guessed, the fence waits until it can be read.
   */
  GPU_COUNT_UNKNOWN(Outcome.SUPPRESSED),
  /** A reset or diagnostic of fenced GPUs waits until no pod holds them (the eviction controller, or the pods ending). */
  GPU_IN_USE(Outcome.SUPPRESSED),
  /** A repair began: the GPU reset Job was created, or the reboot was asked (recorded in the ledger first). */
  REPAIR_STARTED(Outcome.APPLIED),
  /** The repair is done: the GPU reset Job completed, or the node came back Ready with a new bootID. */
  REPAIRED(Outcome.APPLIED),
  /** The GPU reset Job failed, timed out or was lost, or the reboot could not be asked; on_fail decides what next. */
  REPAIR_FAILED(Outcome.FAILED),
  /**
   * nvidia-smi refused the GPU reset ("In use by another client", "in use by another process": persistence mode, DCGM,
   * an exporter or a workload still holds the GPU); the decision names the tool's words, and on_fail decides what next.
   */
  RESET_REFUSED(Outcome.FAILED),
  /** The Node object was deleted while its reboot was under way: the episode is over, with nothing left to act on. */
  NODE_DELETED(Outcome.FAILED),
  /** The rebooted node did not come back Ready with a new bootID within the step's timeout. */
  REBOOT_TIMEOUT(Outcome.FAILED),
  /**
   * The reboot cannot be asked as the node's BMC is built: its system offers no reset, or no type that restarts it;
   * nothing was sent, and on_fail decides what next.
   */
  REBOOT_UNSUPPORTED(Outcome.FAILED),
  /**
   * The BMC written for the node manages another machine: its system's UUID is not the Node's {@code
   * status.nodeInfo.systemUUID} (or one side states none). Nothing was sent; on_fail decides what next.
   */
  BMC_MISMATCH(Outcome.FAILED),
  /** A new node's pre-flight Job was created: the node takes no work until it passes. */
  PREFLIGHT_STARTED(Outcome.APPLIED),
  /** More nodes run a pre-flight Job than preflight.max_concurrent allows; this one waits, keeping its taint. */
  PREFLIGHT_WAITING(Outcome.SUPPRESSED),
  /** The pre-flight Job completed: the pre-flight taint is removed and the node takes work. */
  PREFLIGHT_PASSED(Outcome.APPLIED),
  /** The pre-flight Job failed, timed out or was lost: the node keeps the pre-flight taint; on_fail decides what next. */
  PREFLIGHT_FAILED(Outcome.FAILED),
  /** A failed step escalated the episode to its on_fail playbook. */
  ESCALATED(Outcome.APPLIED),
  /** The release steps ran: the episode is over and the node back as we found it. */
  RELEASED(Outcome.APPLIED),
  /** A human released the node through the API. */
  RELEASED_BY_HUMAN(Outcome.APPLIED),
  /** Someone else uncordoned the node or removed our taint during the episode: it is over, and nothing is put back. */
  HUMAN_OVERRIDE(Outcome.APPLIED),
  /** A human asked for a failed step to run again. */
  STEP_RETRIED(Outcome.APPLIED),
  /** The episode's playbook is no longer loaded; nothing more runs until it is back or a human releases the node. */
  PLAYBOOK_MISSING(Outcome.FAILED),
  /** The node's instance was marked unhealthy in its Auto Scaling group: the group replaces it. */
  REPLACE_STARTED(Outcome.APPLIED),
  /** The replaced node's Node object is gone: the episode is over (its last ledger is in the decision). */
  REPLACED(Outcome.APPLIED),
  /** More replacements than safety.replace_rate_limit allows, or paused, or the breaker is open: the node waits. */
  REPLACE_RATE_LIMITED(Outcome.SUPPRESSED),
  /** The node's providerID is not one we can replace (another cloud, none): nothing was called. */
  PROVIDER_UNSUPPORTED(Outcome.FAILED),
  /** The cloud refused the replacement (the instance is in no Auto Scaling group, say); a human decides. */
  REPLACE_FAILED(Outcome.FAILED),
  /** The Node object was still there when the replace step's timeout passed; a human decides. */
  REPLACE_TIMEOUT(Outcome.FAILED),
  /** An Alertmanager silence is held for the episode. */
  SILENCE_CREATED(Outcome.APPLIED),
  /** The silences of an ended episode were expired. */
  SILENCE_EXPIRED(Outcome.APPLIED),
  /** Alertmanager could not be asked for a silence; retried with backoff, the episode goes on without it. */
  SILENCE_FAILED(Outcome.FAILED),
  /** A sweep's diagnostic Job was started on an idle node (sweeps). */
  SWEEP_STARTED(Outcome.APPLIED),
  /** A sweep's Job was deleted, no episode opened: GPU work came to its node, or the node left the sweep's reach. */
  SWEEP_PREEMPTED(Outcome.SUPPRESSED),
  /** A sweep's pod never ran its diagnostic (the kubelet refused it, or it was lost): no episode, swept again later. */
  SWEEP_NOT_RUN(Outcome.FAILED);

  private final Outcome outcome;
  private final String code;

  Reason(Outcome outcome) {
    this.outcome = outcome;
    this.code = name().toLowerCase(Locale.ROOT);
  }

  /** The outcome this reason belongs to. */
  public Outcome outcome() {
    return outcome;
  }

  /** The stable snake_case code. */
  public String code() {
    return code;
  }
}
