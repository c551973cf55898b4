package io.gpuremediator.safety;

import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.safety.FleetStore.FleetStoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety gate over the fleet state, in three parts: the {@linkplain FleetAdmission admission} of new episodes
 * against the budgets, the {@linkplain BreakerAndPause breaker and the pause} that stop them all, and the
 * {@linkplain FleetStateWriter writer} that stores the state. Until the state is loaded (at start, or when this
 * instance becomes leader) every check refuses: fail closed.
 */
public final class FleetGate implements SafetyGate {
  private static final Logger LOGGER = LoggerFactory.getLogger(FleetGate.class);
  /** The least time between two background writes of the fleet state. */
  public static final Duration WRITE_SPACING = Duration.ofMillis(250);

  private final GateState g;
  private final SelectedFleet selected;
  private final BreakerAndPause stops;
  private final DomainIncidents incidents;
  private final FleetAdmission admission;
  private final ReplaceRateLimit replacements;
  /** The loop's step limits, shown beside the admission's rows once the loop is built. */
  private volatile StepLimits steps = StepLimits.onlyReplacing(ReplaceLimit.NONE);

  /**
   * Creates the gate, storing on the caller's thread.
   *
   * @param selectedNodes the nodes that match node_selector, from the watch cache
   * @param generation changes whenever the cache changes, so fleet counts are recomputed (whole) only then
   */
  public FleetGate(SafetyLimits limits, FleetStore store, Supplier<List<NodeInfo>> selectedNodes, LongSupplier generation,
      SafetyListener listener, Clock clock) {
    this(limits, store, SelectedFleet.countedWhole(selectedNodes, generation), listener, clock);
  }

  /** Creates the gate over the selected fleet, storing on the caller's thread. */
  public FleetGate(SafetyLimits limits, FleetStore store, SelectedFleet selected, SafetyListener listener, Clock clock) {
    this(limits, store, selected, listener, clock, Runnable::run, Duration.ZERO);
  }

  /**
   * Creates the gate.
   *
   * @param background runs the ConfigMap writes and Events that follow a quarantine start or the breaker opening
   *     (one at a time, in order): the webhook that caused them is answered without waiting for them.
   *     {@code Runnable::run} writes on the caller's thread. A write starts no sooner than {@link #WRITE_SPACING} after
   *     the one before it: the starts of a large event are stored a few at a time, not one write each.
   */
  public FleetGate(SafetyLimits limits, FleetStore store, SelectedFleet selected, SafetyListener listener, Clock clock,
      Executor background) {
    this(limits, store, selected, listener, clock, background, WRITE_SPACING);
  }

  private FleetGate(SafetyLimits limits, FleetStore store, SelectedFleet selected, SafetyListener listener, Clock clock,
      Executor background, Duration spacing) {
    this.g = new GateState(limits, clock, listener, new FleetStateWriter(store, background, spacing));
    this.selected = selected;
    this.stops = new BreakerAndPause(g);
    this.incidents = new DomainIncidents(g);
    this.admission = new FleetAdmission(g, stops, incidents, selected);
    this.replacements = new ReplaceRateLimit(g, stops);
  }

  /** Loads the stored state (at start, or on becoming leader); until then every check refuses. */
  public void load() throws FleetStoreException {
    g.lock.lock();
    try {
      FleetState state = g.writer.load();
      g.state = state;
      g.loaded = true;
      g.listener.breaker(state.breaker().open());
      g.listener.paused(stops.activePause(g.clock.instant()).isPresent());
      LOGGER.info("fleet safety state loaded: breaker {}, pause {}, {} recent quarantine starts",
          state.breaker().open() ? "OPEN since " + state.breaker().openedAt() : "closed",
          state.pause().map(p -> "until " + p.until()).orElse("none"), state.starts().size());
    } finally {
      g.lock.unlock();
    }
  }

  /** Forgets the state (on losing leadership): checks refuse until the next {@link #load()}. */
  public void unload() {
    g.loaded = false;
  }

  /** Whether the state is loaded. */
  public boolean isLoaded() {
    return g.loaded;
  }

  @Override
  public Optional<Refusal> reserve(Candidate c) {
    return admission.reserve(c);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The start is stored after the gate's lock is let go: a slow ConfigMap write holds up no other admission.
   */
  @Override
  public void settle(Candidate c, boolean started) {
    admission.settle(c, started);
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
    if (!startedAt.isEmpty()) {
      stops.observe(startedAt);
    }
  }

  @Override
  public Optional<Refusal> check(Candidate c) {
    return admission.check(c);
  }

  /**
   * Whether {@code c} would be admitted with {@code lent} (nodes lent to other work: the sweeps under way) counted as
   * out of service too, each in its failure domains; reserves nothing. A sweep is started only where this admits it.
   */
  public Optional<Refusal> checkBeside(Candidate c, List<Candidate> lent) {
    return admission.checkBeside(c, lent);
  }

  @Override
  public Optional<Refusal> stopped() {
    return admission.stopped();
  }

  /** Unavailable: unschedulable, NotReady, or quarantined by us (our cordon or NoSchedule/NoExecute taint). */
  public static boolean isUnavailable(NodeInfo n) {
    return Unavailable.is(n);
  }

  /**
   * Admits one instance replacement, or says why not: paused, the breaker open, or {@code safety.replace_rate_limit}
   * used up; stored before it is answered (fail closed).
   */
  public Optional<Refusal> admitReplacement(String node) {
    return replacements.admit(node);
  }

  /** The fleet's replacement limit, for the replace steps: {@link #admitReplacement}. */
  public ReplaceLimit replacements() {
    return replacements;
  }

  /** Pauses every new remediation until {@code until}; {@code by} says who asked (shown with the pause). */
  public void pause(String reason, Instant until, String by) throws FleetStoreException {
    stops.pause(reason, until, by);
  }

  /** Ends a pause, saying why when a reason is given. */
  public void resume(Optional<String> reason) throws FleetStoreException {
    stops.resume(reason);
  }

  /** Closes the breaker and forgets the storm's observations: only alerts still firing are acted on later. */
  public void resetBreaker(String by) throws FleetStoreException {
    stops.resetBreaker(by);
  }

  /**
   * A human resets the incident of a failure domain's value; false when none is open there.
   *
   * @throws FleetStoreException when the state is not loaded or cannot be stored (nothing changed)
   */
  public boolean resetIncident(String label, String value, String by) throws FleetStoreException {
    List<String> valueNodes = selected.nodes().stream().filter(n -> n.domainValue(label).filter(value::equals).isPresent())
        .map(NodeInfo::name).toList();
    return incidents.reset(label, value, valueNodes, by);
  }

  /**
   * The step limits this gate's limits set: its replacement limit, and the GPU limits ({@code safety.max_unavailable_gpus},
   * {@code safety.max_fenced_per_node}) over the selected nodes, a place counting on its own for {@code settle}.
   */
  public StepLimits.Fleet stepLimits(Duration settle) {
    return new StepLimits.Fleet(replacements(), new GpuBudget(settle, g.limits.maxUnavailableGpus(),
        g.limits.maxFencedPerNode(), selected));
  }

  /**
   * Shows what the loop's step limits (its rows: the drain and pre-flight slots, any added) have used, in
   * {@link #snapshot}'s rows.
   */
  public void showing(StepLimits loopLimits) {
    steps = loopLimits;
  }

  /** Budgets used and left, the breaker, the pause and the open incidents. */
  public SafetySnapshot snapshot() {
    // Without the lock (the status page reads this every second): the state is immutable and published
    // through a volatile field; the fleet is counted afresh from the cache.
    FleetState now = g.state;
    SafetyLimits limits = g.limits;
    Instant at = g.clock.instant();
    List<NodeInfo> nodes = selected.nodes();
    Set<String> unavailable = nodes.stream().filter(Unavailable::is).map(NodeInfo::name)
        .collect(Collectors.toSet());
    Map<String, Integer> perPlaybook = new HashMap<>();
    now.playbookStarts().forEach((k, v) -> perPlaybook.put(k, FleetState.countWithin(v, at, limits.rate().window())));
    Map<String, Map<String, List<String>>> byValue = Domains.byValue(limits.domains(), nodes);
    FleetView fleet = new FleetView(at, now, limits, nodes.size(), unavailable, byValue, List.of());
    List<LimitUsage> usage = new ArrayList<>();
    FleetLimits.ROWS.forEach(limit -> usage.addAll(limit.usage(fleet)));
    usage.addAll(ReplaceRateLimit.usage(fleet));
    usage.add(GpuBudget.usage(nodes, limits.maxUnavailableGpus(), selected.gpuCounts()));
    usage.addAll(steps.rowUsage(at));
    return new SafetySnapshot(g.loaded, nodes.size(), unavailable.size(), limits.maxUnavailable().of(nodes.size()),
        limits.rate().toString(), FleetState.countWithin(now.starts(), at, limits.rate().window()), perPlaybook,
        now.breaker(), now.pruned(at, limits.retention()).storm(limits.breakerWindow()).size(), limits.breakerNodes(),
        limits.breakerWindow(), limits.autoResetAfter(), now.pause().filter(p -> p.until().isAfter(at)),
        Domains.usage(limits.domains(), byValue, unavailable), usage, List.copyOf(now.incidents().values()),
        Domains.missing(limits.domains(), nodes));
  }
}
