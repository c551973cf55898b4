package io.gpuremediator.pipeline;

import java.time.Duration;
import java.time.Instant;

/** What the pipeline reports while it starts and runs. */
public interface PipelineEvents {
  /** A process is up and ready. */
  void started(String name, long pid, String address, Duration took);

  /** A webhook passed the tee ({@code --verbose} only): the raw body and the remediator's answer. */
  void webhook(String body, String answer);

  /** A webhook reached the tee ({@code --verbose} only), before it is forwarded: when, and the raw body. */
  default void webhookArrived(Instant at, String rawBody) {}

  /** A notification reached the demo's Slack-compatible receiver: its text. */
  default void notified(String text) {}
}
