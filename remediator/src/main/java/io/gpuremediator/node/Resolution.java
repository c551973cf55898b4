package io.gpuremediator.node;

import io.gpuremediator.decision.Reason;

/** The result of resolving an alert to a node: a node that may be acted on, or why not. */
public sealed interface Resolution {
  /** The node name (possibly invalid or unknown), or empty when none was found. */
  String nodeName();

  /** A node that exists, is selected and is not excluded. */
  record Eligible(NodeInfo node) implements Resolution {
    @Override
    public String nodeName() {
      return node.name();
    }
  }

  /**
   * No node may be acted on.
   *
   * @param nodeName the name found, empty when none could be derived (an invalid one is not echoed)
   */
  record Ineligible(Reason reason, String nodeName, String detail) implements Resolution {}
}
