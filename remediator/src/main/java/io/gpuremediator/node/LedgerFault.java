package io.gpuremediator.node;

import java.util.Objects;

/**
 * Why a node's ledger annotation is not acted on: a node with one is never remediated, and nothing its annotation names
 * is given back or deleted.
 *
 * @param kind what is wrong with it
 * @param message what an operator reads: the node, the annotation, and what to do
 */
public record LedgerFault(Kind kind, String message) {
  /** What is wrong with a ledger annotation. */
  public enum Kind {
    /** It does not decode. */
    UNREADABLE,
    /** Its signature does not verify, or it is unsigned where every ledger of ours is signed: not written by us. */
    UNTRUSTED,
    /**
     * Unsigned, as ledgers were before they were signed, and decoded. Only the adapter holds it so: until its one
     * re-signing is done it hands the ledger out as ours, after that as {@link #UNTRUSTED}.
     */
    UNSIGNED
  }

  /** Checks the parts. */
  public LedgerFault {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
  }
}
