package io.gpuremediator.episode;

import io.gpuremediator.action.StepPorts;
import io.gpuremediator.device.Devices;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.safety.StepLimits;
import io.gpuremediator.state.Episode;
import io.gpuremediator.threads.DaemonThreads;
import io.gpuremediator.workload.Workloads;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries every episode on in the background: on a timer and whenever a node is {@linkplain #kick kicked} (a watch
 * event, a Job's change). A node is looked at holding it ({@link NodeExclusion}, shared with the webhook and the human
 * controls); only the leader advances anything, and every write is fenced ({@link EpisodeWriter}). The steps
 * themselves are the {@link StepRunner}'s; this class only decides when, and on which thread.
 */
public final class EpisodeLoop implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(EpisodeLoop.class);
  private static final int LOOKS_IN_A_ROW = 4;

  private final Cluster cluster;
  private final Supplier<PlaybookSet> playbooks;
  private final LoopSettings settings;
  private final BooleanSupplier leading;
  private final NodeExclusion exclusion = new NodeExclusion(this::kick);
  private final EpisodeMoves moves;
  private final StepPorts ports;
  private final StepRunner runner;
  private final GoneNodes gone = new GoneNodes();
  private final NodeUpkeep upkeep;
  private final LoopScan scans;
  private final Optional<SparePool> spares;
  private final PreflightGate preflight;
  private final EpisodeWriter writer;
  private final Supplier<List<NodeInfo>> selected;
  private final AutoCloseable published;
  private ScheduledExecutorService ticker;
  private LookQueue workers;
  private HeldObjectWatches watches;
  /** The pod watches of the nodes being drained (started with the loop). */
  private volatile DrainWatches drains;

  /**
   * Creates the loop with nothing configured outside Kubernetes; nothing runs until {@link #start()}.
   *
   * @param selected the nodes of node_selector (max_draining as a percentage counts them)
   * @param leading whether this instance leads (and its fleet state is loaded): only then is anything written
   */
  public EpisodeLoop(Cluster cluster, Workloads workloads, Supplier<PlaybookSet> playbooks,
      Supplier<List<NodeInfo>> selected, LoopSettings settings, BooleanSupplier leading, DecisionListener listener,
      Clock clock) {
    this(cluster, workloads, playbooks, selected, settings, leading, listener, clock, OutboundPorts.NONE,
        StepLimits.Fleet.NONE);
  }

  /**
   * Creates the loop with what it calls outside Kubernetes (silences, notifications, instance replacement).
   *
   * @param outside the ports of Alertmanager, the notifier and the cloud
   * @param fleet the step limits of the safety gate: the fleet's replacement limit and GPU limits
   */
  public EpisodeLoop(Cluster cluster, Workloads workloads, Supplier<PlaybookSet> playbooks,
      Supplier<List<NodeInfo>> selected, LoopSettings settings, BooleanSupplier leading, DecisionListener listener,
      Clock clock, OutboundPorts outside, StepLimits.Fleet fleet) {
    this(cluster, workloads, Devices.NONE, playbooks, selected, settings, leading, listener, clock, outside, fleet);
  }

  /** Creates the loop with the devices DRA publishes (ResourceSlices, ResourceClaims, DeviceTaintRules), to fence one GPU. */
  public EpisodeLoop(Cluster cluster, Workloads workloads, Devices devices, Supplier<PlaybookSet> playbooks,
      Supplier<List<NodeInfo>> selected, LoopSettings settings, BooleanSupplier leading, DecisionListener listener,
      Clock clock, OutboundPorts outside, StepLimits.Fleet fleet) {
    this.cluster = cluster;
    this.preflight = new PreflightGate(settings.preflight());
    this.playbooks = () -> preflight.with(playbooks.get());
    this.settings = settings;
    this.leading = leading;
    this.selected = selected;
    this.writer = new EpisodeWriter(cluster, leading, clock);
    EpisodeDecisions decisions = new EpisodeDecisions(listener, new NodeEvents(cluster), clock);
    EpisodeOutbound outbound = new EpisodeOutbound(outside, writer, (node, e, reason, detail) -> decisions.decide(node,
        e, reason, detail, List.of(), Optional.empty()), settings.page());
    this.moves = new EpisodeMoves(writer, decisions, outbound, this.playbooks);
    // The ResourceSlice watch lists here, never on a webhook's or page's thread; it is stopped with us.
    this.published = devices.watchPublished(settings.dra().driver());
    this.ports = new StepPorts(cluster, workloads, devices, outside, LoopLimits.of(settings, cluster, selected, fleet),
        settings.retryDelay(), settings.jobNamespace(), settings.replaceProviders(), settings.dra(),
        settings.evidenceStore());
    this.runner = new StepRunner(cluster, moves, ports, leading, gone, new OtherRepairer(cluster, settings.deferTo(), moves,
        ports, gone));
    this.upkeep = new NodeUpkeep(cluster, outbound, new GiveBacks(HoldingKinds.of(ports, List.of()), writer), moves, gone,
        leading);
    this.spares = settings.spares().map(p -> new SparePool(p, cluster, workloads, decisions.events()));
    this.scans = new LoopScan(cluster, this.playbooks, selected, preflight, upkeep, outbound, moves, gone, spares);
  }

  /** The hot spare pool as the last scan left it; empty when no {@code spares} is configured. */
  public Optional<SparesNow> spares() {
    return spares.map(SparePool::held);
  }

  /** Starts the timer, the worker threads, and the watches of what episodes hold outside their nodes (Jobs, rules). */
  public void start() {
    ticker = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("remediator-loop-timer"));
    workers = new LookQueue(settings.workers(), this::runAndRelease);
    long every = settings.interval().toMillis();
    ticker.scheduleWithFixedDelay(this::scanQuietly, every, every, TimeUnit.MILLISECONDS);
    watches = HeldObjectWatches.start(ports, cluster, this::kickStepEnded, published);
    drains = new DrainWatches(ports.workloads(), this::kickStepEnded);
  }

  /** Asks for a look at the node soon (the webhook or the timer); after its holder, if it is held. */
  public void kick(String node) {
    kick(node, false);
  }

  /** Asks for a look at a node whose step ended outside (a Job, a pod, a rule): before the nodes queued for anything else. */
  void kickStepEnded(String node) {
    kick(node, true);
  }

  private void kick(String node, boolean stepEnded) {
    if (workers == null || workers.stopped() || !exclusion.tryEnter(node)) {
      return;
    }
    if (!workers.add(node, stepEnded)) {
      exclusion.exit(node);
    }
  }

  private void runAndRelease(String node) {
    exclusion.lookAndLetGo(node, LOOKS_IN_A_ROW, () -> {
      try {
        advance(node);
      } catch (RuntimeException e) {
        LOGGER.warn("advancing the episodes of node {} failed: {}", node, e.toString(), e);
      }
    });
  }

  private void scanQuietly() {
    try {
      scan();
    } catch (RuntimeException e) {
      LOGGER.warn("loop scan failed: {}", e.toString(), e);
    }
  }

  /** Looks over every node once ({@link LoopScan}) and forgets the drain watches of nodes that are gone. */
  void scan() {
    Set<String> seen = scans.scan(leading.getAsBoolean(), this::kick);
    if (drains != null) {
      drains.retain(seen);
    }
  }

  /** Advances every episode of the node, now, on this thread (callers hold the node). */
  void advance(String node) {
    Optional<NodeInfo> n = cluster.node(node);
    if (!leading.getAsBoolean()) {
      return;
    }
    if (n.isEmpty()) {
      upkeep.endIfGone(node);
      return;
    }
    PlaybookSet set = playbooks.get();
    openPreflight(n.get(), set);
    // What the steps already passed owe (the webhook's quarantine, say) goes out before the stage changes this look makes.
    upkeep.tendQuietly(node, set);
    Optional<NodeInfo> now = cluster.node(node);
    for (Episode e : now.map(c -> c.ledger().episodes().values()).orElse(List.of())) {
      try {
        if (HumanOverride.endIfOverridden(node, now.get(), e, moves, ports)) {
          continue;
        }
        runner.advance(node, e, set);
      } catch (ClusterException ex) {
        LOGGER.warn("episode {} on node {}: {} (retried on the next look)", e.fingerprint(), node, ex.getMessage());
      }
    }
    upkeep.tendQuietly(node, set);
    if (drains != null) {
      drains.update(node, cluster.node(node));
    }
  }

  /** A selected node that registered with the pre-flight taint: its gate's episode is opened and started now. */
  private void openPreflight(NodeInfo n, PlaybookSet set) {
    if (!preflight.wants(n) || selected.get().stream().noneMatch(s -> s.name().equals(n.name()))) {
      return;
    }
    try {
      Optional<Episode> opened = preflight.open(n.name(), writer);
      if (opened.isPresent()) {
        runner.advance(n.name(), opened.get(), set);
      }
    } catch (ClusterException ex) {
      LOGGER.warn("pre-flight of node {}: {} (retried on the next look)", n.name(), ex.getMessage());
    }
  }

  /** The playbooks with the loop's own (the pre-flight gate's), for the human controls. */
  PlaybookSet withBuiltIn(PlaybookSet set) {
    return preflight.with(set);
  }

  /** Whether this instance may write. */
  boolean isLeading() {
    return leading.getAsBoolean();
  }

  /** The one per-node exclusion, for the webhook's writes and the human controls. */
  NodeExclusion exclusion() {
    return exclusion;
  }

  /** The episodes' moves, for the human controls. */
  EpisodeMoves moves() {
    return moves;
  }

  /** The limits the loop's steps take a place in, for the safety gate to show beside its own. */
  public StepLimits limits() {
    return ports.limits();
  }

  /** What the steps act through, for the human controls (a release gives back what a step holds). */
  StepPorts ports() {
    return ports;
  }

  @Override
  public void close() {
    if (watches != null) {
      watches.close();
    } else {
      HeldObjectWatches.stop(published); // never started
    }
    if (ticker != null) {
      ticker.shutdownNow();
    }
    spares.ifPresent(SparePool::close);
    if (drains != null) {
      drains.close();
    }
    if (workers != null) {
      workers.close();
    }
  }
}
