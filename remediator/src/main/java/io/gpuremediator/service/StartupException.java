package io.gpuremediator.service;

/** The service could not start; the message is the one-line reason. */
public final class StartupException extends Exception {
  /** Creates the exception. */
  public StartupException(String message) {
    super(message);
  }
}
