package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.decision.DecisionLog;
import io.gpuremediator.episode.DecisionListener;
import io.gpuremediator.episode.DecisionRecorder;
import io.gpuremediator.episode.EngineBuilder;
import io.gpuremediator.episode.EpisodeLoop;
import io.gpuremediator.episode.HumanControls;
import io.gpuremediator.episode.LoopSettings;
import io.gpuremediator.episode.NodeFanOut;
import io.gpuremediator.episode.RefusalEvents;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.http.ApiRouter;
import io.gpuremediator.http.ClientRate;
import io.gpuremediator.http.ConnectionLimit;
import io.gpuremediator.http.HostCheck;
import io.gpuremediator.http.Readiness;
import io.gpuremediator.http.TokenRoles;
import io.gpuremediator.http.WebhookAdmission;
import io.gpuremediator.http.WebhookHandler;
import io.gpuremediator.kube.Fabric8Cluster;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.maintenance.MaintenanceWatch;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.node.UnwatchedNodes;
import io.gpuremediator.outbound.ScheduledEvents;
import io.gpuremediator.playbook.load.LoadResult;
import io.gpuremediator.playbook.load.PlaybookReloader;
import io.gpuremediator.safety.BudgetWarnings;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.FleetStore;
import io.gpuremediator.safety.GpuCounts;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.safety.SelectedFleet;
import io.gpuremediator.sweep.SweepRunner;
import io.gpuremediator.threads.DaemonThreads;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.hotspot.DefaultExports;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The running service. Start with {@link #start()}, stop with {@link #close()}. */
public final class RemediatorService implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(RemediatorService.class);
  /** How often the playbook files are checked for changes. */
  static final long RELOAD_CHECK_MILLIS = 2000;
  /** How often the selected fleet is compared with the limits (a warning is logged when that changes). */
  static final long FLEET_WARNINGS_CHECK_MILLIS = 10_000;
  private static final int DECISION_LOG_SIZE = 1000;
  private static final int ENGINE_THREADS = 4;

  private final RemediatorConfig config;
  private final KubeApi kube;
  private final Clock clock;
  private final CollectorRegistry registry = new CollectorRegistry();
  private final RemediatorMetrics metrics = new RemediatorMetrics(registry);
  private final DecisionLog decisions = new DecisionLog(DECISION_LOG_SIZE);
  private Vertx vertx;
  private Fabric8Cluster cluster;
  private PlaybookReloader reloader;
  private HttpServer server;
  private HttpServer statusServer;
  private FleetGate gate;
  private Leadership leadership;
  /** Records each decision, counts it, and writes a refusal's Event. */
  private DecisionListener decided;
  private EpisodeLoop loop;
  /** A multi-node webhook's nodes, written side by side up to kubernetes.writes_in_flight. */
  private NodeFanOut fanOut;
  private UnwatchedNodes unwatched;
  private OutboundWiring outside;
  private ExecutorService eventWriter;
  /** Stores the fleet state after a start or a breaker change, and announces it, off the webhook's path. */
  private final ExecutorService stateWriter = Executors.newSingleThreadExecutor(DaemonThreads.named("remediator-fleet-state"));
  private final String identity = PodName.hostname() + "-" + UUID.randomUUID().toString().substring(0, 8);

  /** Creates the service; nothing runs until {@link #start()}. */
  public RemediatorService(RemediatorConfig config, KubeApi kube, Clock clock) {
    this.config = config;
    this.kube = kube;
    this.clock = clock;
  }

  /**
   * Loads the playbooks (refusing to start on invalid ones), starts watching nodes and serves HTTP.
   *
   * @return the port listened on
   * @throws StartupException with a one-line reason when the service cannot start
   */
  public int start() throws StartupException {
    TokenRoles roles = new TokenRoles(SecretFiles.roleTokens(config));
    loadPlaybooks();
    DefaultExports.register(registry);
    vertx = Vertx.vertx();
    cluster = kube.cluster(PodName.hostname(), config.nodeSelector(), SecretFiles.ledgerKey(config),
        config.leaderElection().namespace(), stateConfigMap(), clock);
    cluster.start();
    Supplier<List<NodeInfo>> selected = () -> cluster.nodes().stream()
        .filter(n -> config.nodeSelector().matches(n.labels())).toList();
    RemediationEngine engine = startEngine(selected);
    WorkerExecutor workers = vertx.createSharedWorkerExecutor("remediator-engine", ENGINE_THREADS);
    WorkerExecutor largeWorkers = vertx.createSharedWorkerExecutor("remediator-engine-large-webhooks", 1);
    vertx.setPeriodic(RELOAD_CHECK_MILLIS, id -> workers.executeBlocking(reloader::check, true));
    FleetWarningsLog fleetWarnings = new FleetWarningsLog(cluster::isReady, gate::snapshot);
    vertx.setPeriodic(FLEET_WARNINGS_CHECK_MILLIS, id -> workers.executeBlocking(fleetWarnings::check, false));
    cluster.reSignsLedgersWhen(() -> !config.dryRun() && leadership.isLeader());
    leadership.start(vertx, workers);
    BackgroundLooks looks = new BackgroundLooks(vertx, () -> leadership.isLeader() && cluster.isReady() && gate.isLoaded());
    Optional<MaintenanceWatch> maintenance = outside.scheduledEvents()
        .map(events -> watchMaintenance(events, selected, engine, looks));
    Optional<SweepRunner> sweeps = sweeps(selected, engine, looks);
    Readiness readiness = () -> !reloader.isLoaded() ? Optional.of("playbooks not loaded")
        : !leadership.isLeader() ? Optional.of("not the leader")
        : !cluster.isReady() ? Optional.of("Kubernetes node watch not synced")
        : !gate.isLoaded() ? Optional.of("fleet safety state not loaded") : Optional.empty();
    RemediatorConfig.Limits limits = config.limits();
    ConnectionLimit connections = new ConnectionLimit(limits.maxConnections(), limits.idleTimeout(), System::nanoTime,
        metrics::connections);
    var routes = new ApiRouter.Routes(roles, config.maxBodyBytes(), readiness,
        new WebhookHandler(engine, workers, largeWorkers, metrics), decisions, cluster::nodes, selected, registry, gate,
        workers, clock,
        connections, new ClientRate(limits.clientRate(), clock, client -> metrics.requestLimited("client_rate")),
        new WebhookAdmission(limits.webhookQueue(), config.maxBodyBytes(), limits.bodyTimeout(), metrics::requestLimited),
        new HumanControls(loop, cluster, reloader::current), new HostCheck(config.allowedHosts()), loop::spares,
        () -> maintenance.map(MaintenanceWatch::upcoming), () -> sweeps.map(SweepRunner::status).orElse(List.of()));
    HttpServerOptions options = HttpListen.options(config);
    server = listen("", options, connections, ApiRouter.create(vertx, routes));
    LOGGER.info("listening on {}:{} (tls={}, auth={}, dry_run={}, node_selector={}, node_from={}, playbooks={})",
        config.listenHost(), server.actualPort(), config.tls().isPresent(),
        config.auth().insecureNoAuth() ? "NONE (insecure_no_auth)" : "webhook, operator and read tokens", config.dryRun(), config.nodeSelector(),
        config.nodeFrom(), config.playbooks());
    if (config.statusListen().isPresent()) {
      // The page and the API's reads without a token, on an address only operators reach; same TLS and timeouts, and
      // its connections count against the same max_connections: the open port cannot be used to exhaust the service.
      RemediatorConfig.Listen status = config.statusListen().get();
      statusServer = listen("status_listen ", new HttpServerOptions(options).setHost(status.host()).setPort(status.port()),
          connections, ApiRouter.statusOnly(vertx, routes));
      LOGGER.info("status page and read-only API without a token on {}:{}", status.host(), statusServer.actualPort());
    }
    return server.actualPort();
  }

  /** EC2's scheduled events every {@code every}, as the alert CloudMaintenanceScheduled. */
  private MaintenanceWatch watchMaintenance(ScheduledEvents events, Supplier<List<NodeInfo>> selected, RemediationEngine engine,
      BackgroundLooks looks) {
    RemediatorConfig.ScheduledEvents every = config.aws().orElseThrow().scheduledEvents().orElseThrow();
    MaintenanceWatch watch = new MaintenanceWatch(events, cluster, selected, engine::handleOwn, every.lead(), clock);
    looks.every(every.every(), "remediator-cloud-maintenance", watch::look);
    return watch;
  }

  /** The sweeps, looked at every loop interval; none under the global dry-run, which writes nothing. */
  private Optional<SweepRunner> sweeps(Supplier<List<NodeInfo>> selected, RemediationEngine engine, BackgroundLooks looks) {
    if (config.sweeps().isEmpty() || config.dryRun()) {
      return Optional.empty();
    }
    SweepRunner runner = new SweepRunner(config.sweeps(), reloader::current, selected, kube.workloads(),
        LoopSettingsOf.config(config).jobNamespace(), gate, engine::handleOwn, decided, clock);
    looks.every(config.loop().interval(), "remediator-sweeps", runner::look);
    return Optional.of(runner);
  }

  /** Loads the playbooks, refusing to start on invalid ones or on outside ports they need and the config lacks. */
  private void loadPlaybooks() throws StartupException {
    reloader = new PlaybookReloader(config.playbooks(), this::reloaded);
    LoadResult first = reloader.check().orElseThrow();
    if (!first.isValid()) {
      throw new StartupException("invalid playbooks: " + first.errors().get(0)
          + (first.errors().size() > 1 ? " (and " + (first.errors().size() - 1) + " more)" : ""));
    }
    List<String> unmet = OutboundReadiness.errors(config, first.set());
    if (!unmet.isEmpty()) {
      throw new StartupException(unmet.get(0) + (unmet.size() > 1 ? " (and " + (unmet.size() - 1) + " more)" : ""));
    }
    OutboundReadiness.warnings(config, first.set()).forEach(w -> LOGGER.warn("{}", w));
    BudgetWarnings.offline(config.safety().limits().maxUnavailable(), config.safety().maxDraining()).forEach(w -> LOGGER.warn("{}", w));
    config.warnings().forEach(w -> LOGGER.warn("{}", w));
  }

  /** The outside ports, the fleet gate, the background loop and the webhook's engine, the loop started. */
  private RemediationEngine startEngine(Supplier<List<NodeInfo>> selected) throws StartupException {
    // The outside ports first: the gate's listener pages through their notifier when the breaker opens.
    outside = OutboundWiring.create(config, vertx, metrics, clock);
    gate = new FleetGate(config.safety().limits(), fleetStore(), SelectedFleet.of(cluster, config.nodeSelector(),
        GpuCounts.publishedFirst(node -> kube.devices().publishedGpus(node, config.dra().driver()),
            () -> kube.devices().publishedGeneration(config.dra().driver()))),
        new GateMetrics(metrics, config.safety().page(), () -> outside.ports().notifier()), clock, stateWriter);
    leadership = new Leadership(config.leaderElection(), kube, identity, gate, metrics);
    new LimitsCollector(gate::snapshot).register(registry);
    eventWriter = Executors.newSingleThreadExecutor(DaemonThreads.named("remediator-refusal-events"));
    decided = RefusalEvents.all(new DecisionRecorder(decisions, metrics),
        new RefusalEvents(cluster, eventWriter));
    loop = new EpisodeLoop(cluster, kube.workloads(), kube.devices(), reloader::current, selected,
        LoopSettingsOf.config(config),
        () -> !config.dryRun() && gate.isLoaded() && leadership.isLeader(), decided, clock,
        outside.ports(), gate.stepLimits(LoopSettings.settle(config.loop().interval())));
    gate.showing(loop.limits());
    fanOut = new NodeFanOut(config.kubernetes().writesInFlight());
    unwatched = UnwatchedNodes.background(cluster, config.nodeSelector(), clock);
    RemediationEngine engine = EngineBuilder.of(reloader::current, cluster,
        new NodeResolver(config.nodeFrom(), config.nodeSelector(), cluster, unwatched), clock).dryRun(config.dryRun()).gate(gate)
        .listener(decided).mayWrite(leadership::isLeader).loop(loop).accept(config.acceptAlerts()).deferTo(config.deferTo())
        .ledger(config.ledger()).fanOut(fanOut).build();
    decided.stages(Map.of(), 0); // every stage at 0 from the start, so dashboards see the series
    cluster.onEpisodesChanged(loop::kick);
    loop.start();
    return engine;
  }

  /** Listens ({@link HttpListen}); closes everything if it cannot. */
  private HttpServer listen(String what, HttpServerOptions options, ConnectionLimit connections, Router router)
      throws StartupException {
    try {
      return HttpListen.listen(vertx, what, options, connections, router);
    } catch (StartupException e) {
      close();
      throw e;
    }
  }

  /** The global dry-run writes nothing to Kubernetes, its fleet state included. */
  private FleetStore fleetStore() {
    if (config.dryRun()) {
      return new InMemoryFleetStore();
    }
    return kube.fleetStore(config.leaderElection().namespace(), stateConfigMap(), identity, clock);
  }

  /** The ConfigMap of the fleet state, which also records that the ledgers were re-signed. */
  private String stateConfigMap() {
    return config.leaderElection().lease() + "-state";
  }

  private void reloaded(LoadResult result) {
    metrics.playbooksLoaded(result.isValid(), result.set().playbooks().size(), clock.millis() / 1000.0);
  }

  /** The port of {@code status_listen}, once started. */
  public Optional<Integer> statusPort() {
    return Optional.ofNullable(statusServer).map(HttpServer::actualPort);
  }

  @Override
  public void close() {
    if (loop != null) {
      loop.close();
    }
    if (fanOut != null) {
      fanOut.close();
    }
    if (unwatched != null) {
      unwatched.close();
    }
    if (vertx != null) {
      try {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOGGER.warn("Vert.x did not close cleanly: {}", e.toString());
      }
    }
    // No webhook is answered any more: store the last starts while this instance still holds the Lease.
    stateWriter.shutdown();
    try {
      if (!stateWriter.awaitTermination(5, TimeUnit.SECONDS)) {
        LOGGER.warn("the fleet state's last write did not finish within 5 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (leadership != null) {
      leadership.close();
    }
    Optional.ofNullable(eventWriter).ifPresent(ExecutorService::shutdown);
    if (cluster != null) {
      cluster.close();
    }
    if (outside != null) {
      outside.close();
    }
  }
}
