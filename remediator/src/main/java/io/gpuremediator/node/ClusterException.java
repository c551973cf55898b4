package io.gpuremediator.node;

/**
 * A Kubernetes call failed. {@code transientFailure} is decided from the HTTP status (or a connection
 * failure), never from message text: transient failures are retried by Alertmanager via a 503.
 */
public final class ClusterException extends Exception {
  private final boolean transientFailure;

  /** Creates the exception. */
  public ClusterException(String message, boolean transientFailure, Throwable cause) {
    super(message, cause);
    this.transientFailure = transientFailure;
  }

  /** Whether retrying later may succeed. */
  public boolean isTransient() {
    return transientFailure;
  }
}
