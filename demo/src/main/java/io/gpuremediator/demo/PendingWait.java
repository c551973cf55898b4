package io.gpuremediator.demo;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The wait for an alert with a {@code for:} clause, on live state: its due time is read anew from the
 * alert's current {@code activeAt}, so that a pending state that restarted (its series went stale on a
 * slow machine) moves the deadline with it, and the timeline says so, with what Prometheus saw, instead
 * of counting down to a time that no longer holds. The deadline never passes {@code cap} after the fault.
 */
final class PendingWait {
  private static final Duration RECHECK = Duration.ofSeconds(5);
  private static final Duration PRINT_EVERY = Duration.ofSeconds(30);

  private final Observe see;
  private final Timeline t;
  private final String alertname;
  private final String node;
  private final Duration forDuration;
  private final Duration grace;
  private final List<String> seriesRead;
  private final long capNanos;
  private Instant activeAt;
  private long deadlineNanos;
  private long lastCheck;
  private long lastPrint;

  PendingWait(Observe see, Timeline t, String alertname, String node, Instant activeAt, Duration forDuration, Duration grace,
      List<String> seriesRead, long faultNanos, Duration cap) {
    this.see = see;
    this.t = t;
    this.alertname = alertname;
    this.node = node;
    this.forDuration = forDuration;
    this.grace = grace;
    this.seriesRead = seriesRead;
    this.capNanos = faultNanos + cap.toNanos();
    this.activeAt = activeAt;
    this.deadlineNanos = dueNanos(activeAt);
    this.lastCheck = System.nanoTime();
  }

  /** When waiting stops: the current activeAt plus {@code for:} plus the grace, never past the cap. */
  long deadlineNanos() {
    return deadlineNanos;
  }

  /** Called between polls: re-reads the alert now and then, reports a restart at once and the countdown every 30 s. */
  void tick() {
    long now = System.nanoTime();
    if (now - lastCheck < RECHECK.toNanos()) {
      return;
    }
    lastCheck = now;
    Optional<JsonNode> pending;
    try {
      pending = see.prometheusAlert(alertname, node, "pending");
    } catch (Exception e) {
      return;
    }
    if (pending.isPresent()) {
      Instant current = Instant.parse(pending.get().path("activeAt").asText());
      if (!current.equals(activeAt)) {
        t.at("wait", alertname + " on " + node + ": its pending state restarted (activeAt " + activeAt + " -> " + current
            + "), so `for:` counts again from there; what Prometheus saw:");
        explain();
        activeAt = current;
        deadlineNanos = dueNanos(current);
        lastPrint = now;
      }
    }
    if (now - lastPrint > PRINT_EVERY.toNanos()) {
      lastPrint = now;
      long left = Math.max(0, Duration.between(Instant.now(), activeAt.plus(forDuration)).toSeconds());
      t.at("wait", pending.isPresent() ? alertname + " on " + node + " is pending since " + activeAt + "; it fires in about " + left + " s"
          : alertname + " on " + node + " is not pending now (firing, or reset); waiting");
    }
  }

  private void explain() {
    try {
      see.prometheusWhy(alertname, node, seriesRead).lines().forEach(t::note);
    } catch (Exception e) {
      t.note("(could not ask Prometheus: " + e + ")");
    }
  }

  private long dueNanos(Instant active) {
    long due = System.nanoTime() + Duration.between(Instant.now(), active.plus(forDuration).plus(grace)).toNanos();
    return Math.min(due, capNanos);
  }
}
