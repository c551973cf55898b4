package io.gpuremediator.action;

/** A template rendered a value its Kubernetes field does not accept. */
public final class RenderException extends Exception {
  /** Creates the exception with the message to record in the decision. */
  public RenderException(String message) {
    super(message);
  }
}
