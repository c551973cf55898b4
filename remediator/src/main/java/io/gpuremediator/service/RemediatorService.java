package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.decision.DecisionLog;
import io.gpuremediator.episode.DecisionListener;
import io.gpuremediator.episode.DecisionRecorder;
import io.gpuremediator.episode.EpisodeLoop;
import io.gpuremediator.episode.HumanControls;
import io.gpuremediator.episode.LoopSettings;
import io.gpuremediator.episode.NodeFanOut;
import io.gpuremediator.episode.PreflightSettings;
import io.gpuremediator.episode.RefusalEvents;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.http.ApiRouter;
import io.gpuremediator.http.BearerAuth;
import io.gpuremediator.http.ClientRate;
import io.gpuremediator.http.ConnectionLimit;
import io.gpuremediator.http.Readiness;
import io.gpuremediator.http.WebhookAdmission;
import io.gpuremediator.http.WebhookHandler;
import io.gpuremediator.kube.Fabric8Cluster;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.kube.LeaderElection;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.playbook.load.LoadResult;
import io.gpuremediator.playbook.load.PlaybookReloader;
import io.gpuremediator.safety.BudgetWarnings;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.FleetStore;
import io.gpuremediator.safety.InMemoryFleetStore;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.safety.SafetyListener;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.hotspot.DefaultExports;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
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
  /** How long a leader's lease lasts unrenewed; a released lease is taken over within a seventh of it. */
  static final Duration LEASE_DURATION = Duration.ofSeconds(15);
  private static final long FLEET_STATE_RETRY_MILLIS = 2000;

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
  private LeaderElection election;
  private EpisodeLoop loop;
  /** A multi-node webhook's nodes, written side by side up to kubernetes.writes_in_flight. */
  private NodeFanOut fanOut;
  private OutsideWiring outside;
  private ExecutorService eventWriter;
  /** Stores the fleet state after a start or a breaker change, and announces it, off the webhook's path. */
  private final ExecutorService stateWriter = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "remediator-fleet-state");
    t.setDaemon(true);
    return t;
  });
  private final String identity = hostname() + "-" + UUID.randomUUID().toString().substring(0, 8);

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
    Optional<String> token = SecretFiles.bearerToken(config);
    Optional<String> readOnlyToken = SecretFiles.readOnlyToken(config);
    if (readOnlyToken.isPresent() && readOnlyToken.equals(token)) {
      throw new StartupException("read_token_file holds the bearer token itself: a read-only token must differ");
    }
    loadPlaybooks();
    DefaultExports.register(registry);
    vertx = Vertx.vertx();
    cluster = kube.cluster(hostname(), config.nodeSelector());
    cluster.start();
    Supplier<List<NodeInfo>> selected = () -> cluster.nodes().stream()
        .filter(n -> config.nodeSelector().matches(n.labels())).toList();
    RemediationEngine engine = startEngine(selected);
    WorkerExecutor workers = vertx.createSharedWorkerExecutor("remediator-engine", ENGINE_THREADS);
    WorkerExecutor largeWorkers = vertx.createSharedWorkerExecutor("remediator-engine-large-webhooks", 1);
    vertx.setPeriodic(RELOAD_CHECK_MILLIS, id -> workers.executeBlocking(reloader::check, true));
    FleetWarningsLog fleetWarnings = new FleetWarningsLog(cluster::isReady, gate::snapshot);
    vertx.setPeriodic(FLEET_WARNINGS_CHECK_MILLIS, id -> workers.executeBlocking(fleetWarnings::check, false));
    startLeadership(workers);
    Readiness readiness = () -> !reloader.isLoaded() ? Optional.of("playbooks not loaded")
        : election != null && !election.isLeader() ? Optional.of("not the leader")
        : !cluster.isReady() ? Optional.of("Kubernetes node watch not synced")
        : !gate.isLoaded() ? Optional.of("fleet safety state not loaded") : Optional.empty();
    RemediatorConfig.Limits limits = config.limits();
    ConnectionLimit connections = new ConnectionLimit(limits.maxConnections(), metrics::connections);
    var routes = new ApiRouter.Routes(new BearerAuth(token, readOnlyToken), config.maxBodyBytes(), readiness,
        new WebhookHandler(engine, workers, largeWorkers, metrics), decisions, cluster::nodes, selected, registry, gate,
        workers, clock,
        connections, new ClientRate(limits.clientRate(), clock, client -> metrics.requestLimited("client_rate")),
        new WebhookAdmission(limits.webhookQueue(), config.maxBodyBytes(),
            large -> metrics.requestLimited(large ? "webhook_queue_large" : "webhook_queue")),
        new HumanControls(loop, cluster, reloader::current));
    HttpServerOptions options = serverOptions(limits);
    listen(options, connections, ApiRouter.create(vertx, routes));
    LOGGER.info("listening on {}:{} (tls={}, auth={}, dry_run={}, node_selector={}, node_from={}, playbooks={})",
        config.listenHost(), server.actualPort(), config.tls().isPresent(),
        token.isPresent() ? "bearer" : "NONE (insecure_no_auth)", config.dryRun(), config.nodeSelector(),
        config.nodeFrom(), config.playbooks());
    if (config.statusListen().isPresent()) {
      startStatusServer(config.statusListen().get(), options, routes);
    }
    return server.actualPort();
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
    BudgetWarnings.offline(config.safety().maxUnavailable(), config.safety().maxDraining()).forEach(w -> LOGGER.warn("{}", w));
    config.warnings().forEach(w -> LOGGER.warn("{}", w));
  }

  /** The outside ports, the fleet gate, the background loop and the webhook's engine, the loop started. */
  private RemediationEngine startEngine(Supplier<List<NodeInfo>> selected) throws StartupException {
    // The outside ports first: the gate's listener pages through their notifier when the breaker opens.
    outside = OutsideWiring.create(config, vertx, metrics, clock, node -> gate.admitReplacement(node));
    gate = new FleetGate(SafetyLimits.from(config), fleetStore(), selected,
        cluster::generation, metricsListener(), clock, stateWriter);
    eventWriter = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "remediator-refusal-events");
      t.setDaemon(true);
      return t;
    });
    DecisionListener decided = RefusalEvents.all(new DecisionRecorder(decisions, metrics),
        new RefusalEvents(cluster, eventWriter));
    loop = new EpisodeLoop(cluster, kube.workloads(), reloader::current, selected,
        new LoopSettings(config.loop().interval(), config.loop().retryDelay(), config.safety().maxDraining(),
            config.leaderElection().namespace(), config.replaceProviders(), config.preflight().map(p ->
            new PreflightSettings(p.taint(), p.diagnose().image(), p.diagnose().command(), p.diagnose().timeout(),
                p.onFail(), p.maxConcurrent())), config.safety().page(), config.kubernetes().writesInFlight()),
        () -> !config.dryRun() && gate.isLoaded() && (election == null || election.isLeader()), decided, clock,
        outside.ports());
    fanOut = new NodeFanOut(config.kubernetes().writesInFlight());
    RemediationEngine engine = RemediationEngine.builder(reloader::current, cluster,
        new NodeResolver(config.nodeFrom(), config.nodeSelector(), cluster), clock).dryRun(config.dryRun()).gate(gate)
        .listener(decided).mayWrite(() -> election == null || election.isLeader()).loop(loop).accept(config.acceptAlerts())
        .fanOut(fanOut).build();
    decided.stages(Map.of()); // every stage at 0 from the start, so dashboards see the series
    cluster.onEpisodesChanged(loop::kick);
    loop.start();
    return engine;
  }

  /**
   * HTTP/1.1 only (Alertmanager, probes and Prometheus speak it): with h2c on, a connection that sends nothing is not a
   * connection to Vert.x yet, and would escape max_connections.
   */
  private HttpServerOptions serverOptions(RemediatorConfig.Limits limits) {
    HttpServerOptions options = new HttpServerOptions().setHost(config.listenHost()).setPort(config.listenPort())
        .setHttp2ClearTextEnabled(false)
        .setIdleTimeout((int) limits.idleTimeout().toSeconds()).setIdleTimeoutUnit(TimeUnit.SECONDS);
    config.tls().ifPresent(tls -> options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
        .setCertPath(tls.certFile().toString()).setKeyPath(tls.keyFile().toString())));
    return options;
  }

  private void listen(HttpServerOptions options, ConnectionLimit connections, Router router) throws StartupException {
    try {
      server = vertx.createHttpServer(options).connectionHandler(connections::opened).requestHandler(router).listen()
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      close();
      throw new StartupException("cannot listen on " + config.listenHost() + ":" + config.listenPort() + ": "
          + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
    }
  }

  /** The global dry-run writes nothing to Kubernetes, its fleet state included. */
  private FleetStore fleetStore() {
    if (config.dryRun()) {
      return new InMemoryFleetStore();
    }
    return kube.fleetStore(config.leaderElection().namespace(), config.leaderElection().lease() + "-state",
        identity, clock);
  }

  private SafetyListener metricsListener() {
    return new SafetyListener() {
      @Override
      public void breaker(boolean open) {
        metrics.breaker(open);
      }

      @Override
      public void breakerOpened(String reason) {
        for (String receiver : config.safety().page()) { // safety.page: a human must look
          outside.ports().notifier().send(new Notifier.Notification(receiver, "storm breaker OPEN: " + reason
              + "; nothing new is acted on until a human resets it (POST /api/v1/breaker/reset)", "", "", "breaker_open"));
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
    };
  }

  /**
   * With leader election, only the leader loads the fleet state and acts; without, this instance does.
   * A load that fails (API down) is retried in the background; until it succeeds the service is not
   * ready and every remediation is refused.
   */
  private void startLeadership(WorkerExecutor workers) {
    if (config.leaderElection().enabled()) {
      election = kube.leaderElection(config.leaderElection().namespace(), config.leaderElection().lease(), identity,
          LEASE_DURATION);
      election.start(() -> {
        tryLoadFleetState();
        metrics.leader(true);
      }, () -> {
        gate.unload();
        metrics.leader(false);
      });
    } else {
      metrics.leader(true);
      tryLoadFleetState();
    }
    vertx.setPeriodic(FLEET_STATE_RETRY_MILLIS, id -> {
      if (!gate.isLoaded() && (election == null || election.isLeader())) {
        workers.executeBlocking(() -> {
          tryLoadFleetState();
          return null;
        }, false);
      }
    });
  }

  private void tryLoadFleetState() {
    try {
      gate.load();
    } catch (FleetStore.FleetStoreException e) {
      LOGGER.warn("fleet safety state not loaded ({}); retrying, and refusing every remediation meanwhile", e.getMessage());
    }
  }

  private void reloaded(LoadResult result) {
    metrics.playbooksLoaded(result.isValid(), result.set().playbooks().size(), clock.millis() / 1000.0);
  }

  /**
   * The status page and the API's reads on {@code status_listen}, without a token: an address only operators
   * reach (a port-forward, an internal interface). Same TLS and timeouts as the main listener.
   */
  private void startStatusServer(RemediatorConfig.Listen listen, HttpServerOptions main, ApiRouter.Routes routes)
      throws StartupException {
    HttpServerOptions options = new HttpServerOptions(main).setHost(listen.host()).setPort(listen.port());
    try {
      // Its connections count against the same max_connections: the open port cannot be used to exhaust the service.
      statusServer = vertx.createHttpServer(options).connectionHandler(routes.connections()::opened)
          .requestHandler(ApiRouter.statusOnly(vertx, routes)).listen()
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      close();
      throw new StartupException("cannot listen on status_listen " + listen.host() + ":" + listen.port() + ": "
          + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
    }
    LOGGER.info("status page and read-only API without a token on {}:{}", listen.host(), statusServer.actualPort());
  }

  /** The port of {@code status_listen}, once started. */
  public Optional<Integer> statusPort() {
    return Optional.ofNullable(statusServer).map(HttpServer::actualPort);
  }

  private static String hostname() {
    String name = System.getenv("HOSTNAME");
    return name == null || name.isBlank() ? "gpu-remediator" : name;
  }

  @Override
  public void close() {
    if (loop != null) {
      loop.close();
    }
    if (fanOut != null) {
      fanOut.close();
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
    if (election != null) {
      election.close();
    }
    if (eventWriter != null) {
      eventWriter.shutdown();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (outside != null) {
      outside.close();
    }
  }


  /** The service could not start; the message is the one-line reason. */
  public static final class StartupException extends Exception {
    /** Creates the exception. */
    public StartupException(String message) {
      super(message);
    }
  }
}
