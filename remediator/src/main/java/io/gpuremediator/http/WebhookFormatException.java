package io.gpuremediator.http;

/** A webhook body that is not a valid Alertmanager version 4 message; the message names the field. */
public final class WebhookFormatException extends Exception {
  /** Creates the exception, e.g. {@code alerts[2].startsAt: "x" is not an RFC 3339 time}. */
  public WebhookFormatException(String message) {
    super(message);
  }
}
