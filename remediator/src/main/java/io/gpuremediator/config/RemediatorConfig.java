package io.gpuremediator.config;

import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.SparePolicy;
import io.gpuremediator.outbound.BmcAddress;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.state.LedgerLimits;
import io.gpuremediator.sweep.SweepPolicy;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Rate;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** The whole service config, as decoded and defaulted. */
public record RemediatorConfig(
    String listenHost,
    int listenPort,
    Auth auth,
    Optional<Tls> tls,
    long maxBodyBytes,
    List<Path> playbooks,
    boolean dryRun,
    Kubernetes kubernetes,
    LabelSelector nodeSelector,
    List<String> nodeFrom,
    Safety safety,
    LeaderElection leaderElection,
    Limits limits,
    Loop loop,
    Optional<Listen> statusListen,
    Optional<Alertmanager> alertmanager,
    List<Receiver> receivers,
    Optional<Aws> aws,
    Optional<Redfish> redfish,
    Set<String> replaceProviders,
    Optional<PreflightSettings> preflight,
    List<Matcher> acceptAlerts,
    LogFormat logFormat,
    List<DeferRule> deferTo,
    DraScope dra,
    Optional<EvidenceStore> evidenceStore,
    LedgerLimits ledger,
    List<String> allowedHosts,
    Optional<SparePolicy> spares,
    List<SweepPolicy> sweeps) {

  /** Copies lists and validates presence. */
  public RemediatorConfig {
    deferTo = List.copyOf(deferTo);
    sweeps = List.copyOf(sweeps);
    allowedHosts = List.copyOf(allowedHosts); // http.allowed_hosts: the names a request's Host may carry besides ours
    Objects.requireNonNull(listenHost, "listenHost");
    Objects.requireNonNull(auth, "auth");
    Objects.requireNonNull(tls, "tls");
    playbooks = List.copyOf(playbooks);
    Objects.requireNonNull(kubernetes, "kubernetes");
    Objects.requireNonNull(nodeSelector, "nodeSelector");
    nodeFrom = List.copyOf(nodeFrom);
    Objects.requireNonNull(safety, "safety");
    Objects.requireNonNull(leaderElection, "leaderElection");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(loop, "loop");
    Objects.requireNonNull(statusListen, "statusListen");
    Objects.requireNonNull(alertmanager, "alertmanager");
    receivers = List.copyOf(receivers);
    Objects.requireNonNull(aws, "aws");
    Objects.requireNonNull(redfish, "redfish");
    replaceProviders = Set.copyOf(replaceProviders);
    Objects.requireNonNull(preflight, "preflight");
    acceptAlerts = List.copyOf(acceptAlerts);
    Objects.requireNonNull(logFormat, "logFormat");
    Objects.requireNonNull(ledger, "ledger");
  }

  /** What this config leaves open that an operator should know of ({@code validate} prints, {@code serve} logs). */
  public List<String> warnings() {
    List<String> out = new ArrayList<>(AcceptAlerts.warnings(acceptAlerts));
    safety.limits().domains().stream().filter(d -> d.label().equals(NodeInfo.CLIQUE_LABEL)).findFirst().ifPresent(d -> out.add(
        "safety.domains label " + NodeInfo.CLIQUE_LABEL + " is set by GPU Feature Discovery, which the GPU Operator's"
        + " DRA stack does not run: there a node's clique is the one NVIDIA's DRA driver publishes (ComputeDomainClique),"
        + " known only while a ComputeDomain uses the node; a selected node that shows neither is not counted in that"
        + " domain, and is named in GET /api/v1/safety's warnings and remediator_domain_label_missing"));
    deferTo.stream().filter(r -> r.deadline().filter(d -> d.then() == DeferRule.Then.PAGE).isPresent()
        && safety.page().isEmpty()).findFirst().ifPresent(r -> out.add("defer_to " + r.describe() + " pages people at"
        + " its deadline, and safety.page names no receiver: the page is only a decision (deferral_paged) and an Event"));
    return out;
  }

  /** The Alertmanager silences are held in ({@code alertmanager}). */
  public record Alertmanager(URI url, Optional<Path> bearerTokenFile) {}

  /** The kinds of notification receiver. */
  public enum ReceiverType {
    /** Slack's incoming webhooks (and anything that takes {@code {"text": ...}}). */
    SLACK,
    /** A generic JSON POST of the whole notification. */
    WEBHOOK
  }

  /** A notification receiver ({@code notify.receivers}); its URL is read from a file (it is a secret). */
  public record Receiver(String name, ReceiverType type, Path urlFile) {}

  /**
   * Where instances are replaced ({@code cloud.aws}); credentials come from the SDK's default provider chain.
   *
   * @param scheduledEvents whether and how EC2's scheduled events are read ({@code scheduled_events})
   */
  public record Aws(String region, Optional<URI> endpoint, Optional<ScheduledEvents> scheduledEvents) {}

  /**
   * {@code cloud.aws.scheduled_events: {every, lead}}: EC2's scheduled events of the selected nodes read every
   * {@code every}, each firing CloudMaintenanceScheduled {@code lead} before it may start.
   */
  public record ScheduledEvents(Duration every, Duration lead) {
    /** Read every 5 minutes; fired 2 hours ahead. */
    public static final ScheduledEvents DEFAULT = new ScheduledEvents(Duration.ofMinutes(5), Duration.ofHours(2));
  }

  /**
   * How servers are power-cycled through their BMCs ({@code cloud.redfish}): which BMC is which node's is what an
   * operator wrote ({@code bmcs}, {@code bmcs_file}), never a Node annotation.
   *
   * @param credentialsFile holds {@code user:password} (a mounted Secret); read at each reset, so a rotation needs no restart
   * @param caFile the PEM CA bundle the BMCs' certificates are verified against; empty: no https BMC is trusted
   * @param insecureHttp whether plain-http BMCs are allowed (their credentials travel in clear)
   * @param bmcs the BMCs written in the config
   * @param bmcsFile a file of more ({@code bmcs: [...]}, a mounted ConfigMap), read at each reset
   */
  public record Redfish(Path credentialsFile, Optional<Path> caFile, boolean insecureHttp, List<Bmc> bmcs,
      Optional<Path> bmcsFile) {
    /** Copies the list. */
    public Redfish {
      bmcs = List.copyOf(bmcs);
    }
  }

  /**
   * One node's BMC ({@code cloud.redfish.bmcs} entry): the node by name or by {@code spec.providerID}, exactly one.
   */
  public record Bmc(Optional<String> node, Optional<String> providerId, BmcAddress address) {}

  /**
   * How webhook and API callers authenticate: one token a role, each from a file, or explicitly none.
   *
   * @param webhookTokenFile the token of {@code POST /api/v1/alerts} only (Alertmanager's)
   * @param operatorTokenFile the token of every change a human makes (pause, resume, resets, release, retry), and reads
   * @param readTokenFile the token that opens the status page and the API's GETs, never a change
   * @param ledgerKeyFile the key every node ledger is signed with (a Secret's); required unless insecureNoAuth
   * @param insecureNoAuth every request is let in, and ledgers without a key file are signed with a published key
   */
  public record Auth(Optional<Path> webhookTokenFile, Optional<Path> operatorTokenFile, Optional<Path> readTokenFile,
      Optional<Path> ledgerKeyFile, boolean insecureNoAuth) {}

  /** A HOST:PORT to listen on. */
  public record Listen(String host, int port) {}

  /** The server certificate and key (PEM). */
  public record Tls(Path certFile, Path keyFile) {}

  /**
   * {@code safety:} as decoded: the fleet's limits, decoded straight into the record the gate uses (its defaults written
   * there once), and what the loop takes from the same block.
   *
   * @param limits the limits that refuse new episodes and the GPU and replacement limits ({@code FleetGate})
   * @param maxDraining nodes in stage draining at once; more wait in stage quarantined
   * @param page the notify receivers told when the breaker opens or a node reaches needs_human
   */
  public record Safety(SafetyLimits limits, CountOrPercent maxDraining, List<String> page) {
    /** Nodes in stage draining at once when {@code safety.max_draining} says nothing: two. */
    public static final CountOrPercent DEFAULT_MAX_DRAINING = new CountOrPercent(2, false);

    /** Copies the list and checks presence. */
    public Safety {
      Objects.requireNonNull(limits, "limits");
      Objects.requireNonNull(maxDraining, "maxDraining");
      page = List.copyOf(page);
    }
  }

  /**
   * How the closed loop runs: how often it looks at every episode (watch events look sooner), and how long
   * an eviction a PodDisruptionBudget or throttling refused waits before it is asked again.
   */
  public record Loop(Duration interval, Duration retryDelay) {
    /** Every 10 s; a refused eviction again after 5 s (kubectl's delay). */
    public static final Loop DEFAULTS = new Loop(Duration.ofSeconds(10), Duration.ofSeconds(5));
  }

  /**
   * What one client, or all of them, may hold of the service: open connections (when full, the one idle longest
   * gives way), how long a connection may sit idle between requests (never cut while one is in progress), requests
   * per client address, webhooks in progress, and how long a webhook's body may take to arrive.
   */
  public record Limits(int maxConnections, Duration idleTimeout, Rate clientRate, int webhookQueue, Duration bodyTimeout) {
    /** The defaults: far above what an Alertmanager pair sends, far below what exhausts the service. */
    public static final Limits DEFAULTS = new Limits(4096, Duration.ofSeconds(60), new Rate(100, Duration.ofSeconds(1)), 64,
        Duration.ofSeconds(10));
  }

  /**
   * The API server: a kubeconfig (in-cluster when absent), and the client's rate limit as client-go's: at most {@code qps}
   * requests a second after a {@code burst}, and at most {@code writesInFlight} writes at once: the nodes a webhook
   * names are written side by side, up to that many, and the loop looks at as many nodes at once.
   */
  public record Kubernetes(Optional<Path> kubeconfig, int qps, int burst, int writesInFlight) {
    /**
     * The defaults: kube-scheduler's own rate (50 a second, bursts of 100); a 1,000-node event's quarantine (three
     * calls a node) then takes about a minute, and Alertmanager retries the webhook rather than wait for it.
     */
    public static final Kubernetes DEFAULTS = new Kubernetes(Optional.empty(), 50, 100, 16);

    /** Checks presence. */
    public Kubernetes {
      Objects.requireNonNull(kubeconfig, "kubeconfig");
    }
  }

  /** Leader election on a Lease that lasts {@code leaseDuration} unrenewed. */
  public record LeaderElection(boolean enabled, String namespace, String lease, Duration leaseDuration) {}
}
