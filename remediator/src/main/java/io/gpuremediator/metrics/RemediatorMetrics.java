package io.gpuremediator.metrics;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Histogram;
import java.util.Map;

/** The service's collectors, registered to one registry. */
public final class RemediatorMetrics {
  private static final double[] LATENCY_BUCKETS =
      {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  private final CollectorRegistry registry;
  private final Counter alertsReceived;
  private final Counter decisions;
  private final Counter webhookRequests;
  private final Histogram webhookDuration;
  private final Histogram actionDuration;
  private final Counter reloads;
  private final Gauge reloadSuccess;
  private final Gauge reloadTimestamp;
  private final Gauge playbooksLoaded;
  private final Gauge breakerOpen;
  private final Gauge paused;
  private final Gauge unavailable;
  private final Gauge unavailableBudget;
  private final Gauge leader;
  private final Gauge connections;
  private final Counter connectionsClosed;
  private final Counter requestsLimited;
  private final Gauge episodeStage;
  private final Gauge gpusFenced;
  private final Gauge oldestStep;
  private final Histogram stepDuration;
  private final Histogram alertToAction;
  private final Histogram episodeDuration;
  private final Histogram repairDuration;
  private final Histogram incidentInterval;
  private final Counter outboundRequests;
  private final Counter notificationsDropped;

  /** Registers every collector in {@code registry}. */
  public RemediatorMetrics(CollectorRegistry registry) {
    this.registry = registry;
    oldestStep = Gauge.build("remediator_step_oldest_start_timestamp_seconds",
        "When the oldest long step under way of each kind started (Unix seconds); absent for a kind with none.")
        .labelNames("kind").register(registry);
    episodeStage = Gauge.build("remediator_episode_stage", "Active episodes by closed-loop stage.")
        .labelNames("stage").register(registry);
    gpusFenced = Gauge.build("remediator_gpus_fenced", "GPUs fenced by a DeviceTaintRule of an active episode (fence_gpu);"
        + " their nodes stay in service.").register(registry);
    stepDuration = Histogram.build("remediator_step_duration_seconds",
        "How long a long step (drain, diagnose) took, from its start to its end, by kind and outcome.")
        .labelNames("kind", "outcome").buckets(1, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200).register(registry);
    alertToAction = alertToAction(registry);
    episodeDuration = episodeDuration(registry);
    repairDuration = repairDuration(registry);
    incidentInterval = incidentInterval(registry);
    outboundRequests = outboundRequests(registry);
    notificationsDropped = Counter.build("remediator_notifications_dropped_total",
        "Notifications dropped because the send queue was full, by receiver.").labelNames("receiver").register(registry);
    alertsReceived = Counter.build("remediator_alerts_received_total", "Alerts received in webhooks, by status.")
        .labelNames("status").register(registry);
    decisions = Counter.build("remediator_decisions_total", "Decisions made, by outcome and reason code.")
        .labelNames("outcome", "reason").register(registry);
    webhookRequests = Counter.build("remediator_webhook_requests_total", "Webhook requests answered, by HTTP status code.")
        .labelNames("code").register(registry);
    webhookDuration = Histogram.build("remediator_webhook_duration_seconds",
        "Time from a webhook's arrival to its answer, every alert decided.").buckets(LATENCY_BUCKETS).register(registry);
    actionDuration = Histogram.build("remediator_action_duration_seconds",
        "Time for an action to take effect in Kubernetes (node actions share one write), by action and outcome.")
        .labelNames("action", "outcome").buckets(LATENCY_BUCKETS).register(registry);
    reloads = Counter.build("remediator_playbook_reloads_total", "Playbook loads, by outcome (success, failure).")
        .labelNames("outcome").register(registry);
    reloadSuccess = Gauge.build("remediator_playbook_reload_success",
        "1 when the last playbook load succeeded, 0 when it failed and the previous playbooks stay in force.")
        .register(registry);
    reloadTimestamp = Gauge.build("remediator_playbook_reload_timestamp_seconds",
        "When the playbooks in force were loaded.").register(registry);
    playbooksLoaded = Gauge.build("remediator_playbooks_loaded", "Playbooks in force.").register(registry);
    breakerOpen = Gauge.build("remediator_breaker_open",
        "1 while the storm breaker is open: no new quarantine until a human resets it.").register(registry);
    paused = Gauge.build("remediator_paused", "1 while an operator has paused remediation.").register(registry);
    unavailable = Gauge.build("remediator_unavailable_nodes",
        "Selected nodes unschedulable, NotReady or quarantined, at the last safety check.").register(registry);
    unavailableBudget = Gauge.build("remediator_unavailable_budget",
        "Nodes max_unavailable allows, at the last safety check.").register(registry);
    leader = Gauge.build("remediator_leader", "1 on the instance that leads (and acts).").register(registry);
    connections = Gauge.build("remediator_http_connections", "HTTP connections open.").register(registry);
    connectionsClosed = Counter.build("remediator_http_connections_limited_total",
        "Connections closed by limits.max_connections: the one idle longest to make room (idle_evicted), or a new one"
            + " when none was idle (refused).").labelNames("reason").register(registry);
    requestsLimited = Counter.build("remediator_http_requests_limited_total",
        "Requests refused before being read, by limit: client_rate (429), webhook_queue, webhook_queue_large and"
            + " webhook_client (503), webhook_body_timeout (408: the body did not arrive in time).")
        .labelNames("limit").register(registry);
  }

  private static Histogram alertToAction(CollectorRegistry registry) {
    return Histogram.build("remediator_alert_to_action_seconds",
        "From an alert's startsAt to the decision that applied its firing actions (Prometheus's for:, Alertmanager's "
            + "group_wait and our decision together): the fault-to-quarantine time seen from here.")
        .buckets(10, 30, 60, 120, 180, 300, 600, 1200, 3600, 21600).register(registry);
  }

  private static Histogram episodeDuration(CollectorRegistry registry) {
    return Histogram.build("remediator_episode_duration_seconds",
        "From an episode's fault (its alert's startsAt) to its end: back in service (released), replaced, or stopped for"
            + " a human (needs_human), by playbook, outcome and who closed it (automatic, or human: a release through"
            + " the API or a human override).")
        .labelNames("playbook", "outcome", "closed_by")
        .buckets(60, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 259200, 604800).register(registry);
  }

  private static Histogram repairDuration(CollectorRegistry registry) {
    return Histogram.build("remediator_episode_repair_seconds",
        "A repair step that passed (a GPU reset, a reboot), from its start to its end: the repair alone, without the"
            + " drain before it (a workload's checkpoint time) or the diagnostics after it, by playbook and step.")
        .labelNames("playbook", "step")
        .buckets(10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200).register(registry);
  }

  private static Histogram incidentInterval(CollectorRegistry registry) {
    return Histogram.build("remediator_node_incident_interval_seconds",
        "Time between the starts of two episodes on one node (the earlier from its ledger, so a restart loses nothing):"
            + " short intervals are nodes that a repair did not fix.")
        .buckets(600, 3600, 21600, 86400, 259200, 604800, 2592000).register(registry);
  }

  private static Counter outboundRequests(CollectorRegistry registry) {
    return Counter.build("remediator_outbound_requests_total",
        "Requests to Alertmanager, notification receivers and the cloud, by target and outcome (ok, http_<code>, timeout,"
            + " error, gave_up, unknown_receiver, or the cloud's error code).")
        .labelNames("target", "outcome").register(registry);
  }

  /** Records the breaker's state. */
  public void breaker(boolean open) {
    breakerOpen.set(open ? 1 : 0);
  }

  /** Records the pause state. */
  public void paused(boolean isPaused) {
    paused.set(isPaused ? 1 : 0);
  }

  /** Records the unavailable count and its budget. */
  public void unavailable(int count, int budget) {
    unavailable.set(count);
    unavailableBudget.set(budget);
  }

  /** Records leadership. */
  public void leader(boolean isLeader) {
    leader.set(isLeader ? 1 : 0);
  }

  /** HTTP connections open now; {@code closedBy} the reason when the connection limit just closed one, else null. */
  public void connections(int open, String closedBy) {
    connections.set(open);
    if (closedBy != null) {
      connectionsClosed.labels(closedBy).inc();
    }
  }

  /** A request refused by {@code limit} before it was read. */
  public void requestLimited(String limit) {
    requestsLimited.labels(limit).inc();
  }

  /** The registry the collectors live in. */
  public CollectorRegistry registry() {
    return registry;
  }

  /** Records how long after its alert started firing an episode was acted on. */
  public void actedAfter(double seconds) {
    alertToAction.observe(Math.max(0, seconds));
  }

  /** Counts a decision. */
  public void decided(String outcome, String reason) {
    decided(outcome, reason, 1);
  }

  /** Counts {@code count} decisions of one outcome and reason (a webhook's, counted together). */
  public void decided(String outcome, String reason, int count) {
    decisions.labels(outcome, reason).inc(count);
  }

  /** Counts {@code count} received alerts of one status (a webhook's, counted together). */
  public void alertsReceived(String status, int count) {
    alertsReceived.labels(status).inc(count);
  }

  /** Counts a webhook answer and observes its duration. */
  public void webhookAnswered(int code, double seconds) {
    webhookRequests.labels(Integer.toString(code)).inc();
    webhookDuration.observe(seconds);
  }

  /** Observes how long an action took to take effect. */
  public void actionTimed(String action, String outcome, double seconds) {
    actionDuration.labels(action, outcome).observe(seconds);
  }

  /** Records a playbook load. */
  public void playbooksLoaded(boolean success, int count, double epochSeconds) {
    reloads.labels(success ? "success" : "failure").inc();
    reloadSuccess.set(success ? 1 : 0);
    if (success) {
      playbooksLoaded.set(count);
      reloadTimestamp.set(epochSeconds);
    }
  }

  /** Sets the number of active episodes in each stage (every stage code, zero included). */
  public void episodeStages(Map<String, Integer> byStage) {
    byStage.forEach((stage, n) -> episodeStage.labels(stage).set(n));
  }

  /** Sets the number of GPUs fenced by active episodes. */
  public void gpusFenced(int n) {
    gpusFenced.set(n);
  }

  /** Sets when the oldest step under way of each kind started; a kind with none under way is removed. */
  public synchronized void oldestSteps(Map<String, Double> startedByKind) {
    oldestStep.clear();
    startedByKind.forEach((kind, at) -> oldestStep.labels(kind).set(at));
  }

  /** Observes a long step that ended. */
  public void stepFinished(String kind, String outcome, double seconds) {
    stepDuration.labels(kind, outcome).observe(seconds);
  }

  /**
   * An episode ended ({@code released}, {@code replaced}) or stopped for a human ({@code needs_human}).
   *
   * @param closedBy {@code automatic}, or {@code human} (a release through the API, a human override)
   */
  public void episodeEnded(String playbook, String outcome, String closedBy, double seconds) {
    episodeDuration.labels(playbook, outcome, closedBy).observe(seconds);
  }

  /** A repair step (a GPU reset, a reboot) passed after this long, the drain before it not counted. */
  public void repaired(String playbook, String step, double seconds) {
    repairDuration.labels(playbook, step).observe(seconds);
  }

  /** A node's new episode started this long after its previous one. */
  public void incidentInterval(double seconds) {
    incidentInterval.observe(seconds);
  }

  /** An outbound request ended. */
  public void outboundRequest(String target, String outcome) {
    outboundRequests.labels(target, outcome).inc();
  }

  /** A notification was dropped: its queue was full. */
  public void notificationDropped(String receiver) {
    notificationsDropped.labels(receiver).inc();
  }
}
