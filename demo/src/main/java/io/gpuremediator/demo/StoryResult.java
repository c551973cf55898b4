package io.gpuremediator.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the story saw, for the end-to-end test's assertions.
 *
 * @param xidFaultToQuarantine from the simulator's XID 79 to the taint visible in the API
 * @param xidDecision the remediator's decision about the XID 79 node: outcome/reason
 * @param xidDrained whether the training worker on the XID node was evicted (once its budget allowed)
 * @param xidBack from the XID 79 to its node back in service after a reboot and diagnostics (null: not back)
 * @param resetBack from the XID 48 to its node back in service after a GPU reset and diagnostics (null: not back)
 * @param driverResetBack from the driver's recovery action 1 to its node back in service after a GPU reset and
 *     diagnostics (null: not back)
 * @param driverPlaybook the playbook the remediator chose for the driver's recovery action
 * @param appXidReceivers where Alertmanager routed the application XID
 * @param appXidDecisions how many decisions the remediator made about the application XID's node
 * @param appXidNodeTouched whether that node was tainted, cordoned, given a health condition or a ledger
 * @param lostFaultToQuarantine from the GPU vanishing to the taint visible (includes the rule's for: 2m)
 * @param lostReleased whether the first lost GPU's node passed diagnostics and is back in service, untouched
 * @param lost2Escalated whether the second, still faulty, node failed diagnostics and stays quarantined for a human
 * @param breakerState the storm breaker's state after the storm
 * @param stormDecisions each storm node's decision: outcome/reason
 * @param stormNodesTouched storm nodes tainted, cordoned, given a health condition or a ledger
 * @param xidSilenced whether Alertmanager held an active silence of the remediator's for the XID node
 * @param lostSilenceExpired whether the released node's silence was expired (and none left active)
 * @param notifications what the demo's gpu-oncall receiver got, oldest first
 * @param replacedThrough what the replacement asked of Karpenter (the replace_started decision's detail)
 * @param replacement the node Karpenter launched in place of the node beyond repair (null: none)
 * @param replacementEarned whether that node passed its pre-flight: the taint removed, its decision recorded
 * @param infinibandBack whether the node whose InfiniBand port went down was quarantined and, the port back, returned
 * @param fabricDecisions each node of the clique whose fabric failed: its fabric alert's first decision, outcome/reason
 * @param fabricIncident whether the clique's incident opened
 * @param fabricPages the pages gpu-oncall received about the incident
 * @param fabricRepaired whether a reset or reboot was asked of a node of the clique
 * @param xidEvidenceFirst whether the XID 79 node's evidence Job was created before its reboot was asked
 * @param xidEvidenceStored where that Job's report was stored before the reboot (the file there checked); empty: not
 * @param draNodeCordoned whether the DRA node whose one GPU was fenced was ever cordoned or tainted
 * @param draOthersRunning how many of that node's 7 other inference pods kept running
 * @param draExporterKept whether that node's exporter (the GPU Operator v26.7 DRA stack's, its claim on every GPU) ran
 *     throughout the fence, the fenced GPU's series still scraped
 * @param spareReleased the spare the spare pool released when one of its nodes was quarantined (empty: none)
 * @param spareBeforeDrained whether it was released before that node's drain ended
 * @param spareLandedOn the node the job's worker was placed on by the scheduler's filters once evicted (empty: none)
 * @param spareRefilled whether the repaired node was held as the pool's spare after its episode
 * @param sweepFoundIdle whether the sweep's diagnostic found the idle node's bad GPU and opened an episode, no job's pod
 *     ever on the node
 * @param sweepBack whether that node, rebooted as the diagnostic said, returned to service
 */
public record StoryResult(
    Duration xidFaultToQuarantine,
    String xidDecision,
    boolean xidDrained,
    Duration xidBack,
    Duration resetBack,
    Duration driverResetBack,
    String driverPlaybook,
    List<String> appXidReceivers,
    int appXidDecisions,
    boolean appXidNodeTouched,
    Duration lostFaultToQuarantine,
    boolean lostReleased,
    boolean lost2Escalated,
    String breakerState,
    Map<String, String> stormDecisions,
    List<String> stormNodesTouched,
    boolean xidSilenced,
    boolean lostSilenceExpired,
    List<String> notifications,
    String replacedThrough,
    String replacement,
    boolean replacementEarned,
    boolean infinibandBack,
    Map<String, String> fabricDecisions,
    boolean fabricIncident,
    int fabricPages,
    boolean fabricRepaired,
    boolean xidEvidenceFirst,
    String xidEvidenceStored,
    boolean draNodeCordoned,
    int draOthersRunning,
    boolean draExporterKept,
    String spareReleased,
    boolean spareBeforeDrained,
    String spareLandedOn,
    boolean spareRefilled,
    boolean sweepFoundIdle,
    boolean sweepBack) {}
