package io.gpuremediator.outbound;

/** Told of every outbound request, for {@code remediator_outbound_requests_total{target,outcome}}. */
public interface OutboundListener {
  /**
   * One request ended.
   *
   * @param target {@code alertmanager}, {@code notify:<receiver>} or {@code aws_autoscaling}
   * @param outcome {@code ok}, {@code http_<code>}, {@code timeout}, {@code error} or the cloud's error code
   */
  void request(String target, String outcome);

  /** A notification was dropped: its queue was full. */
  default void dropped(String receiver) {}

  /** Nobody listens. */
  OutboundListener NONE = (target, outcome) -> {};
}
