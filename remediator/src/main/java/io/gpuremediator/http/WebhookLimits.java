package io.gpuremediator.http;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;

/** What a webhook's JSON may not exceed, and how each limit is named when it is exceeded. */
final class WebhookLimits {
  /** The longest key taken: a label name of Prometheus's is far shorter, and a longer one is refused by name. */
  static final int MAX_NAME = 1024;

  private WebhookLimits() {}

  /** The message of the limit Jackson says was exceeded (its own message names it), as the answer's error. */
  static String exceeded(StreamConstraintsException e, int maxDepth) {
    String limit = String.valueOf(e.getMessage());
    if (limit.contains("Name length")) {
      return "body: a key (a label or annotation name) is longer than " + MAX_NAME + " characters";
    }
    return limit.contains("nesting depth") ? "body: JSON nested deeper than " + maxDepth + " levels"
        : "body: a value is larger than the service takes";
  }
}
