package io.gpuremediator.safety;

import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.safety.FleetState.Breaker;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.safety.FleetState.Pause;
import io.gpuremediator.safety.FleetStore.FleetStoreException;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety gate over the fleet state. Checks run in a fixed order (pause, breaker, max_unavailable,
 * fleet rate, playbook rate, cooldown); the first limit that refuses names the decision. Until the
 * state is loaded (at start, or when this instance becomes leader) every check refuses: fail closed.
 */
public final class FleetGate implements SafetyGate {
  private static final Logger LOGGER = LoggerFactory.getLogger(FleetGate.class);
  private static final int NODES_NAMED_IN_REASON = 10;

  private final SafetyLimits limits;
  private final FleetStore store;
  private final Supplier<List<NodeInfo>> selectedNodes;
  private final java.util.function.LongSupplier generation;
  private long countedGeneration = -1;
  private int countedSelected;
  private Set<String> countedUnavailable = Set.of();
  /** Admitted episodes whose node write has not settled yet (under the lock). */
  private final List<Candidate> reservations = new ArrayList<>();
  private final SafetyListener listener;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final Object saving = new Object();
  /** Runs the stores and announcements that follow a start or a breaker change, in order, off the caller's path. */
  private final java.util.concurrent.Executor background;
  /** Set while the newest state waits to be stored; the background write that clears it stores what is newest then. */
  private final java.util.concurrent.atomic.AtomicBoolean unsaved = new java.util.concurrent.atomic.AtomicBoolean();
  private volatile FleetState state = FleetState.EMPTY;
  private volatile boolean loaded;
  private volatile BreakerRefusal breakerRefusal;
  private static final Refusal NOT_LOADED = new Refusal(Reason.SAFETY_STATE_UNAVAILABLE,
      "fleet safety state not loaded (not leader, or its ConfigMap unreadable)");

  /**
   * Creates the gate.
   *
   * @param selectedNodes the nodes that match node_selector, from the watch cache
   * @param generation changes whenever the cache changes, so fleet counts are recomputed only then
   */
  public FleetGate(SafetyLimits limits, FleetStore store, Supplier<List<NodeInfo>> selectedNodes,
      java.util.function.LongSupplier generation, SafetyListener listener, Clock clock) {
    this(limits, store, selectedNodes, generation, listener, clock, Runnable::run);
  }

  /**
   * Creates the gate.
   *
   * @param background runs the ConfigMap writes and Events that follow a quarantine start or the breaker opening
   *     (one at a time, in order): the webhook that caused them is answered without waiting for them.
   *     {@code Runnable::run} writes on the caller's thread.
   */
  public FleetGate(SafetyLimits limits, FleetStore store, Supplier<List<NodeInfo>> selectedNodes,
      java.util.function.LongSupplier generation, SafetyListener listener, Clock clock,
      java.util.concurrent.Executor background) {
    this.background = background;
    this.limits = limits;
    this.store = store;
    this.selectedNodes = selectedNodes;
    this.generation = generation;
    this.listener = listener;
    this.clock = clock;
  }

  /** Loads the stored state (at start, or on becoming leader); until then every check refuses. */
  public void load() throws FleetStoreException {
    lock.lock();
    try {
      state = store.load();
      loaded = true;
      listener.breaker(state.breaker().open());
      listener.paused(activePause(clock.instant()).isPresent());
      LOGGER.info("fleet safety state loaded: breaker {}, pause {}, {} recent quarantine starts",
          state.breaker().open() ? "OPEN since " + state.breaker().openedAt() : "closed",
          state.pause().map(p -> "until " + p.until()).orElse("none"), state.starts().size());
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the state (on losing leadership): checks refuse until the next {@link #load()}. */
  public void unload() {
    loaded = false;
  }

  /** Whether the state is loaded. */
  public boolean isLoaded() {
    return loaded;
  }

  @Override
  public Optional<Refusal> reserve(Candidate c) {
    lock.lock();
    try {
      Optional<Refusal> refusal = refusal(c);
      if (refusal.isEmpty() && c.becomesUnavailable()) {
        reservations.add(c);
      }
      return refusal;
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>The start is stored after the gate's lock is let go: a slow ConfigMap write holds up no other admission.
   */
  @Override
  public void settle(Candidate c, boolean started) {
    if (!c.becomesUnavailable()) {
      return;
    }
    lock.lock();
    try {
      reservations.remove(c);
      if (!started) {
        return;
      }
      Instant now = clock.instant();
      state = state.withStart(c.playbook(), now).pruned(now, limits.retention());
    } finally {
      lock.unlock();
    }
    save();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The breaker opens when the new episodes of more distinct nodes than the threshold started within the
   * window of each other, whenever that was: a storm Alertmanager delivers late (after a restart, or while the
   * remediator was down) is still a storm. Re-sends of episodes the ledger knows never reach the gate.
   */
  @Override
  public void observe(Map<String, Instant> startedAt) {
    if (startedAt.isEmpty()) {
      return;
    }
    lock.lock();
    try {
      Instant now = clock.instant();
      autoReset(now);
      FleetState next = state.withFiring(startedAt, now).pruned(now, limits.retention());
      List<String> storm = next.storm(limits.breakerWindow());
      if (!next.breaker().open() && storm.size() > limits.breakerNodes()) {
        String reason = storm.size() + " nodes started firing remediation alerts within "
            + Durations.format(limits.breakerWindow()) + " of each other (more than " + limits.breakerNodes() + "): "
            + storm.stream().limit(NODES_NAMED_IN_REASON).collect(Collectors.joining(", "))
            + (storm.size() > NODES_NAMED_IN_REASON ? ", ..." : "");
        next = next.withBreaker(new Breaker(true, now, reason));
        LOGGER.error("STORM BREAKER OPEN: {}. No new quarantine until POST /api/v1/breaker/reset{}", reason,
            limits.autoResetAfter().map(d -> " or auto-reset after " + Durations.format(d)).orElse(""));
        listener.breaker(true);
        persist(next);
        String opened = "Storm breaker opened: " + reason + ". No new quarantine until a human resets it.";
        later(() -> store.announce("RemediationBreakerOpen", opened));
      } else {
        // Observations alone are kept in memory and stored with the next start or breaker change: a webhook
        // must not cost a ConfigMap write. A new leader therefore starts its storm window from the starts it reads.
        state = next;
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<Refusal> check(Candidate c) {
    lock.lock();
    try {
      return refusal(c);
    } finally {
      lock.unlock();
    }
  }

  /** The first limit that refuses {@code c}, counting the reservations not yet settled (under the lock). */
  private Optional<Refusal> refusal(Candidate c) {
    if (!loaded) {
      return Optional.of(NOT_LOADED);
    }
    Instant now = clock.instant();
    autoReset(now);
    Optional<Refusal> stopped = stopped(state, now);
    if (stopped.isPresent()) {
      return stopped;
    }
    if (c.becomesUnavailable()) {
      Optional<Refusal> capacity = capacity(c, now);
      if (capacity.isPresent()) {
        return capacity;
      }
    }
    java.time.Duration cooldown = c.cooldown().orElse(limits.cooldown());
    Optional<Instant> released = c.node().ledger().lastRelease(c.playbook());
    if (released.isPresent() && released.get().plus(cooldown).isAfter(now)) {
      return Optional.of(new Refusal(Reason.COOLDOWN, "playbook " + c.playbook() + " released this node at " + released.get()
          + "; cooldown " + Durations.format(cooldown) + " lasts until " + released.get().plus(cooldown)));
    }
    return Optional.empty();
  }

  @Override
  public Optional<Refusal> stopped() {
    if (!loaded) {
      return Optional.of(NOT_LOADED);
    }
    FleetState s = state;
    Instant now = clock.instant();
    if (autoResetDue(s.breaker(), now)) {
      return Optional.empty(); // the check under the lock does the reset
    }
    return stopped(s, now);
  }

  /** The pause or the open breaker of {@code s}; the breaker's refusal is built once per opening, not per alert. */
  private Optional<Refusal> stopped(FleetState s, Instant now) {
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

  private record BreakerRefusal(Breaker breaker, Refusal refusal) {}

  /** Counts selected and unavailable nodes, again only when the cache changed (under the lock). */
  private void count() {
    long now = generation.getAsLong();
    if (now != countedGeneration) {
      List<NodeInfo> selected = selectedNodes.get();
      countedSelected = selected.size();
      countedUnavailable = selected.stream().filter(FleetGate::isUnavailable).map(NodeInfo::name)
          .collect(Collectors.toSet());
      countedGeneration = now;
    }
  }

  private Optional<Refusal> capacity(Candidate c, Instant now) {
    count();
    int budget = limits.maxUnavailable().of(countedSelected);
    // A reservation's node counts until the cache shows it out of service; a second episode on a node
    // already reserved takes no second unit.
    Set<String> reservedNodes = reservations.stream().map(r -> r.node().name()).collect(Collectors.toSet());
    int unavailable = countedUnavailable.size()
        + (int) reservedNodes.stream().filter(n -> !countedUnavailable.contains(n)).count();
    int adds = reservedNodes.contains(c.node().name()) ? 0 : 1;
    listener.unavailable(unavailable, budget);
    if (unavailable + adds > budget) {
      return Optional.of(new Refusal(Reason.MAX_UNAVAILABLE, unavailable + " of " + countedSelected
          + " selected nodes are unavailable" + (reservedNodes.isEmpty() ? "" : " or being quarantined")
          + "; max_unavailable " + limits.maxUnavailable() + " allows " + budget));
    }
    int used = FleetState.countWithin(state.starts(), now, limits.rate().window()) + reservations.size();
    if (used + 1 > limits.rate().count()) {
      return Optional.of(new Refusal(Reason.RATE_LIMITED, "fleet rate_limit " + limits.rate() + " used: " + used
          + " quarantines started in the last " + Durations.format(limits.rate().window())));
    }
    if (c.playbookRate().isPresent()) {
      Rate own = c.playbookRate().get();
      int ownUsed = FleetState.countWithin(state.playbookStarts().getOrDefault(c.playbook(), List.of()), now, own.window())
          + (int) reservations.stream().filter(r -> r.playbook().equals(c.playbook())).count();
      if (ownUsed + 1 > own.count()) {
        return Optional.of(new Refusal(Reason.RATE_LIMITED, "playbook " + c.playbook() + " rate_limit " + own + " used: "
            + ownUsed + " quarantines started in the last " + Durations.format(own.window())));
      }
    }
    return Optional.empty();
  }

  /** Unavailable: unschedulable, NotReady, or quarantined by us (our cordon or NoSchedule/NoExecute taint). */
  public static boolean isUnavailable(NodeInfo n) {
    return n.unschedulable() || !n.isReady() || ClaimKey.anyTakesNodeOutOfService(n.ledger());
  }

  /**
   * Admits one instance replacement, or says why not: paused, the breaker open, or {@code safety.replace_rate_limit}
   * used up. The admission is counted under the gate's lock, then stored (outside it, as every start is) before it is
   * answered, so no restart or new leader can let more through than the limit; a state that cannot be stored refuses
   * (the admission stays counted: fail closed).
   */
  public Optional<Refusal> admitReplacement(String node) {
    Rate rate = limits.replaceRate();
    int used;
    lock.lock();
    try {
      if (!loaded) {
        return Optional.of(new Refusal(Reason.SAFETY_STATE_UNAVAILABLE, "fleet safety state not loaded"));
      }
      Instant now = clock.instant();
      Optional<Pause> pause = activePause(now);
      if (pause.isPresent()) {
        return Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED, "remediation is paused until " + pause.get().until()
            + ": " + pause.get().reason()));
      }
      if (state.breaker().open()) {
        return Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED, "the storm breaker is open: " + state.breaker().reason()));
      }
      used = FleetState.countWithin(state.replacements(), now, rate.window());
      if (used >= rate.count()) {
        return Optional.of(new Refusal(Reason.REPLACE_RATE_LIMITED, "replace_rate_limit " + rate + " used up: " + used
            + " replacements within " + Durations.format(rate.window())));
      }
      state = state.withReplacement(now).pruned(now, limits.retention());
    } finally {
      lock.unlock();
    }
    try {
      synchronized (saving) {
        store.save(state);
      }
    } catch (FleetStoreException e) {
      return Optional.of(new Refusal(Reason.SAFETY_STATE_UNAVAILABLE, "the replacement could not be recorded: "
          + e.getMessage()));
    }
    LOGGER.info("instance replacement of node {} admitted ({} of {} within {})", node, used + 1, rate.count(),
        Durations.format(rate.window()));
    return Optional.empty();
  }

  /** Pauses every new remediation until {@code until}; {@code by} says who asked (shown with the pause). */
  public void pause(String reason, Instant until, String by) throws FleetStoreException {
    change(s -> s.withPause(Optional.of(new Pause(reason, until, clock.instant(), by))),
        "RemediationPaused", "Remediation paused until " + until + " by " + by + ": " + reason);
    listener.paused(true);
  }

  /** Ends a pause, saying why when a reason is given. */
  public void resume(Optional<String> reason) throws FleetStoreException {
    change(s -> s.withPause(Optional.empty()), "RemediationResumed",
        "Remediation resumed" + reason.map(r -> ": " + r).orElse(""));
    listener.paused(false);
  }

  /** Closes the breaker and forgets the storm's observations: only alerts still firing are acted on later. */
  public void resetBreaker(String by) throws FleetStoreException {
    change(s -> s.withBreaker(Breaker.CLOSED), "RemediationBreakerReset", "Storm breaker reset by " + by);
    listener.breaker(false);
  }

  private void change(java.util.function.UnaryOperator<FleetState> op, String reason, String message) throws FleetStoreException {
    lock.lock();
    try {
      if (!loaded) {
        throw new FleetStoreException("fleet safety state not loaded", null);
      }
      FleetState next = op.apply(state);
      synchronized (saving) {
        store.save(next);
        state = next; // inside: a background write waiting for the monitor then stores this, never what it replaced
      }
      LOGGER.warn("{}: {}", reason, message);
      store.announce(reason, message);
    } finally {
      lock.unlock();
    }
  }

  private void autoReset(Instant now) {
    if (autoResetDue(state.breaker(), now)) {
      LOGGER.warn("storm breaker auto-reset after {}", Durations.format(limits.autoResetAfter().get()));
      listener.breaker(false);
      persist(state.withBreaker(Breaker.CLOSED));
      String reset = "Storm breaker auto-reset after " + Durations.format(limits.autoResetAfter().get());
      later(() -> store.announce("RemediationBreakerReset", reset));
    }
  }

  /** Whether {@code b} is open and its {@code auto_reset_after} has passed. */
  private boolean autoResetDue(Breaker b, Instant now) {
    return b.open() && limits.autoResetAfter().isPresent()
        && !b.openedAt().plus(limits.autoResetAfter().get()).isAfter(now);
  }

  private Optional<Pause> activePause(Instant now) {
    return state.pause().filter(p -> p.until().isAfter(now));
  }

  /** Keeps the new state in memory even when it cannot be stored: a breaker that opened stays open. */
  private void persist(FleetState next) {
    state = next;
    save();
  }

  /**
   * Stores the newest state in the background: writes are serialised apart from the gate's lock, and changes that
   * come while one is under way are stored together by the next (a 50-node burst of starts costs a few writes, not 50).
   * A crash before the write loses only the starts of the last moments: every episode is on its node's ledger.
   */
  private void save() {
    if (unsaved.getAndSet(true)) {
      return; // a write is already due; it will store this change too
    }
    later(() -> {
      unsaved.set(false);
      synchronized (saving) {
        try {
          store.save(state);
        } catch (FleetStoreException e) {
          LOGGER.error("fleet safety state not stored ({}); kept in memory", e.getMessage());
        }
      }
    });
  }

  /** Runs {@code work} in the background, or here when the background has stopped (the service closing). */
  private void later(Runnable work) {
    try {
      background.execute(work);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      work.run();
    }
  }

  /** Budgets used and left, the breaker and the pause. */
  public SafetySnapshot snapshot() {
    // Without the lock (the status page reads this every second): the state is immutable and published
    // through a volatile field; the fleet is counted afresh from the cache.
    FleetState now = state;
    Instant at = clock.instant();
    List<NodeInfo> selected = selectedNodes.get();
    int unavailable = (int) selected.stream().filter(FleetGate::isUnavailable).count();
    Map<String, Integer> perPlaybook = new HashMap<>();
    now.playbookStarts().forEach((k, v) -> perPlaybook.put(k, FleetState.countWithin(v, at, limits.rate().window())));
    return new SafetySnapshot(loaded, selected.size(), unavailable, limits.maxUnavailable().of(selected.size()),
        limits.rate().toString(), FleetState.countWithin(now.starts(), at, limits.rate().window()), perPlaybook,
        now.breaker(), now.pruned(at, limits.retention()).storm(limits.breakerWindow()).size(), limits.breakerNodes(),
        limits.breakerWindow(), limits.autoResetAfter(), now.pause().filter(p -> p.until().isAfter(at)));
  }
}
