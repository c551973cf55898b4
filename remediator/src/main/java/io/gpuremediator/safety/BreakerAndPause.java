package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.safety.FleetState.Breaker;
import io.gpuremediator.safety.FleetState.Pause;
import io.gpuremediator.safety.FleetStore.FleetStoreException;
import io.gpuremediator.value.Durations;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What stops every new remediation: the storm breaker (opened by a storm, reset by a human or after
 * {@code auto_reset_after}) and a human's pause; and the fleet's replacement limit, which they stop too.
 */
final class BreakerAndPause {
  private static final Logger LOGGER = LoggerFactory.getLogger(BreakerAndPause.class);
  private static final int NODES_NAMED_IN_REASON = 10;

  private final GateState g;
  private volatile BreakerRefusal breakerRefusal;

  BreakerAndPause(GateState g) {
    this.g = g;
  }

  private record BreakerRefusal(Breaker breaker, Refusal refusal) {}

  /**
   * Records firing nodes and opens the breaker when the new episodes of more distinct nodes than the threshold started
   * within the window of each other, whenever that was: a storm Alertmanager delivers late is still a storm.
   */
  void observe(Map<String, Instant> startedAt) {
    g.lock.lock();
    try {
      Instant now = g.clock.instant();
      autoReset(now);
      SafetyLimits limits = g.limits;
      FleetState next = g.state.withFiring(startedAt, now).pruned(now, limits.retention());
      // A storm is some of the nodes firing: while they are no more than the breaker allows, none is looked for.
      List<String> storm = next.breaker().open() || next.firing().size() <= limits.breakerNodes() ? List.of()
          : next.storm(limits.breakerWindow());
      if (storm.size() > limits.breakerNodes()) {
        String reason = storm.size() + " nodes started firing remediation alerts within "
            + Durations.format(limits.breakerWindow()) + " of each other (more than " + limits.breakerNodes() + "): "
            + storm.stream().limit(NODES_NAMED_IN_REASON).collect(Collectors.joining(", "))
            + (storm.size() > NODES_NAMED_IN_REASON ? ", ..." : "");
        next = next.withBreaker(new Breaker(true, now, reason));
        LOGGER.error("STORM BREAKER OPEN: {}. No new quarantine until POST /api/v1/breaker/reset{}", reason,
            limits.autoResetAfter().map(d -> " or auto-reset after " + Durations.format(d)).orElse(""));
        g.listener.breaker(true);
        g.persist(next);
        g.listener.breakerOpened(reason);
        g.writer.announceLater("RemediationBreakerOpen", "Storm breaker opened: " + reason
            + ". No new quarantine until a human resets it.");
      } else {
        // Observations alone are kept in memory and stored with the next start or breaker change: a webhook
        // must not cost a ConfigMap write. A new leader therefore starts its storm window from the starts it reads.
        g.state = next;
      }
    } finally {
      g.lock.unlock();
    }
  }

  /** Without the lock: the pause or the open breaker, unless an auto-reset is due (the check under the lock does it). */
  Optional<Refusal> stoppedNow() {
    FleetState s = g.state;
    Instant now = g.clock.instant();
    return autoResetDue(s.breaker(), now) ? Optional.empty() : stopped(s, now);
  }

  /** The pause or the open breaker of {@code s}; the breaker's refusal is built once per opening, not per alert. */
  Optional<Refusal> stopped(FleetState s, Instant now) {
    Optional<Pause> pause = s.pause().filter(p -> p.until().isAfter(now));
    if (pause.isPresent()) {
      return Optional.of(new Refusal(Reason.PAUSED, "remediation paused until " + pause.get().until() + ": "
          + pause.get().reason()));
    }
    if (!s.breaker().open()) {
      return Optional.empty();
    }
    BreakerRefusal known = breakerRefusal;
    if (known == null || known.breaker() != s.breaker()) {
      known = new BreakerRefusal(s.breaker(), new Refusal(Reason.BREAKER_OPEN, "storm breaker open since "
          + s.breaker().openedAt() + " (" + s.breaker().reason() + "); a human resets it with POST"
          + " /api/v1/breaker/reset"));
      breakerRefusal = known;
    }
    return Optional.of(known.refusal());
  }

  /** Closes the breaker when its {@code auto_reset_after} has passed (under the lock). */
  void autoReset(Instant now) {
    if (autoResetDue(g.state.breaker(), now)) {
      String after = Durations.format(g.limits.autoResetAfter().get());
      LOGGER.warn("storm breaker auto-reset after {}", after);
      String reset = "Storm breaker auto-reset after " + after;
      g.listener.breaker(false);
      g.persist(g.state.withBreaker(Breaker.CLOSED));
      g.writer.announceLater("RemediationBreakerReset", reset);
    }
  }

  private boolean autoResetDue(Breaker b, Instant now) {
    return b.open() && g.limits.autoResetAfter().isPresent()
        && !b.openedAt().plus(g.limits.autoResetAfter().get()).isAfter(now);
  }

  Optional<Pause> activePause(Instant now) {
    return g.state.pause().filter(p -> p.until().isAfter(now));
  }

  void pause(String reason, Instant until, String by) throws FleetStoreException {
    change(s -> s.withPause(Optional.of(new Pause(reason, until, g.clock.instant(), by))),
        "RemediationPaused", "Remediation paused until " + until + " by " + by + ": " + reason);
    g.listener.paused(true);
  }

  void resume(Optional<String> reason) throws FleetStoreException {
    change(s -> s.withPause(Optional.empty()), "RemediationResumed",
        "Remediation resumed" + reason.map(r -> ": " + r).orElse(""));
    g.listener.paused(false);
  }

  void resetBreaker(String by) throws FleetStoreException {
    change(s -> s.withBreaker(Breaker.CLOSED), "RemediationBreakerReset", "Storm breaker reset by " + by);
    g.listener.breaker(false);
  }

  private void change(UnaryOperator<FleetState> op, String reason, String message) throws FleetStoreException {
    g.lock.lock();
    try {
      if (!g.loaded) {
        throw new FleetStoreException("fleet safety state not loaded", null);
      }
      FleetState next = op.apply(g.state);
      g.writer.saveNow(() -> next, () -> g.state = next);
      LOGGER.warn("{}: {}", reason, message);
      g.writer.announce(reason, message);
    } finally {
      g.lock.unlock();
    }
  }
}
