package io.gpuremediator.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the story saw, for the end-to-end test's assertions.
 *
 * @param xidFaultToQuarantine from the simulator's XID 79 to the taint visible in the API
 * @param xidDecision the remediator's decision about the XID 79 node: outcome/reason
 * @param appXidReceivers where Alertmanager routed the application XID
 * @param appXidDecisions how many decisions the remediator made about the application XID's node
 * @param appXidNodeTouched whether that node was tainted, cordoned, given a health condition or a ledger
 * @param lostFaultToQuarantine from the GPU vanishing to the taint visible (includes the rule's for: 2m)
 * @param breakerState the storm breaker's state after the storm
 * @param stormDecisions each storm node's decision: outcome/reason
 * @param stormNodesTouched storm nodes tainted, cordoned, given a health condition or a ledger
 */
public record StoryResult(
    Duration xidFaultToQuarantine,
    String xidDecision,
    List<String> appXidReceivers,
    int appXidDecisions,
    boolean appXidNodeTouched,
    Duration lostFaultToQuarantine,
    String breakerState,
    Map<String, String> stormDecisions,
    List<String> stormNodesTouched) {}
