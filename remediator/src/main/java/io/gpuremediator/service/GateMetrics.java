package io.gpuremediator.service;

import io.gpuremediator.metrics.RemediatorMetrics;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.safety.SafetyListener;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the fleet gate reports: its gauges, and the breaker's opening and a failure domain's incident paged to
 * {@code safety.page}'s receivers.
 */
final class GateMetrics implements SafetyListener {
  private final RemediatorMetrics metrics;
  private final List<String> page;
  private final Supplier<Notifier> notifier;

  GateMetrics(RemediatorMetrics metrics, List<String> page, Supplier<Notifier> notifier) {
    this.metrics = metrics;
    this.page = List.copyOf(page);
    this.notifier = notifier;
  }

  @Override
  public void breaker(boolean open) {
    metrics.breaker(open);
  }

  @Override
  public void breakerOpened(String reason) {
    for (String receiver : page) { // safety.page: a human must look
      notifier.get().send(new Notifier.Notification(receiver, "storm breaker OPEN: " + reason
          + "; nothing new is acted on until a human resets it (POST /api/v1/breaker/reset)", "", "", "breaker_open"));
    }
  }

  @Override
  public void incidentOpened(String label, String value, String reason) {
    for (String receiver : page) { // safety.page: one page an incident, however many of its nodes fault
      notifier.get().send(new Notifier.Notification(receiver, "domain incident in " + label + "=" + value + ": " + reason
          + "; no new episode starts in it until a human resets it (POST /api/v1/safety/domains/" + label + "/" + value
          + "/reset)", "", "", "domain_incident"));
    }
  }

  @Override
  public void paused(boolean paused) {
    metrics.paused(paused);
  }

  @Override
  public void unavailable(int unavailable, int budget) {
    metrics.unavailable(unavailable, budget);
  }
}
