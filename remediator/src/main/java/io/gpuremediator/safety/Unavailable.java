package io.gpuremediator.safety;

import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.ClaimKey;

/** What every budget counts as out of service: unschedulable, NotReady, or quarantined by us, whoever caused it. */
final class Unavailable {
  private Unavailable() {}

  /** Unschedulable, NotReady, or quarantined by us (our cordon or NoSchedule/NoExecute taint). */
  static boolean is(NodeInfo n) {
    return n.unschedulable() || !n.isReady() || ClaimKey.anyTakesNodeOutOfService(n.ledger());
  }
}
