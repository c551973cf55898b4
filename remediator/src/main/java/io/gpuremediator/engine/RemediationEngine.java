package io.gpuremediator.engine;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.NodeDraft;
import io.gpuremediator.action.Phase;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.action.Step;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.Cluster.Edited;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.node.Resolution;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.SafetyGate;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.NodeLedger.Episode;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns alerts into decisions and node changes. Thread-safe: decisions about one node are serialised
 * by a lock, and writes use optimistic concurrency against other writers.
 */
public final class RemediationEngine {
  private static final Logger LOGGER = LoggerFactory.getLogger(RemediationEngine.class);
  private static final int LOCK_STRIPES = 64;

  private final Supplier<PlaybookSet> playbooks;
  private final Cluster cluster;
  private final NodeResolver resolver;
  private final boolean globalDryRun;
  private final SafetyGate gate;
  private final DecisionListener listener;
  private final Clock clock;
  private final ReentrantLock[] locks = new ReentrantLock[LOCK_STRIPES];

  /** Creates an engine. */
  public RemediationEngine(Supplier<PlaybookSet> playbooks, Cluster cluster, NodeResolver resolver, boolean globalDryRun,
      SafetyGate gate, DecisionListener listener, Clock clock) {
    this.playbooks = playbooks;
    this.cluster = cluster;
    this.resolver = resolver;
    this.globalDryRun = globalDryRun;
    this.gate = gate;
    this.listener = listener;
    this.clock = clock;
    for (int i = 0; i < LOCK_STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  /**
   * Decides every alert of a webhook, each by its own status. First the nodes of all new episodes of
   * remediation alerts are shown to the safety gate together, so a storm in one payload opens the
   * breaker before any of its nodes is acted on.
   */
  public WebhookResult handle(WebhookMessage message) {
    PlaybookSet set = playbooks.get();
    List<Candidate> candidates = new ArrayList<>(message.alerts().size());
    Map<String, Instant> firing = new LinkedHashMap<>();
    for (Alert alert : message.alerts()) {
      Candidate c = new Candidate(alert, set.firstMatch(alert.labels()), resolver.resolve(alert.labels()));
      candidates.add(c);
      // Only new episodes can make a storm: Alertmanager re-sends the ones the ledger knows with every group change.
      if (alert.isFiring() && c.playbook().isPresent() && c.resolution() instanceof Resolution.Eligible e
          && !isDuplicate(e.node(), alert)) {
        firing.merge(e.node().name(), alert.startsAt(), (a, b) -> a.isAfter(b) ? a : b);
      }
    }
    if (!firing.isEmpty()) {
      gate.observe(firing);
    }
    List<Decision> decisions = new ArrayList<>(candidates.size());
    for (Candidate c : candidates) {
      Decision decision = evaluate(c, set);
      listener.decided(decision);
      decisions.add(decision);
    }
    return new WebhookResult(decisions);
  }

  /** Decides one alert against the current playbooks, as a webhook of its own. */
  public Decision decide(Alert alert) {
    return handle(new WebhookMessage("", alert.status(), "", 0, Map.of(), List.of(alert))).decisions().get(0);
  }

  /** An alert with its playbook and node, found once per webhook. */
  private record Candidate(Alert alert, Optional<Playbook> playbook, Resolution resolution) {}

  private Decision evaluate(Candidate c, PlaybookSet set) {
    Alert alert = c.alert();
    Resolution resolution = c.resolution();
    if (c.playbook().isEmpty()) {
      return decision(alert, resolution.nodeName(), "", Reason.NO_PLAYBOOK, "no playbook matches the alert's labels", List.of());
    }
    Playbook playbook = c.playbook().get();
    if (resolution instanceof Resolution.Ineligible no) {
      return decision(alert, no.nodeName(), playbook.name(), no.reason(), no.detail(), List.of());
    }
    NodeInfo node = ((Resolution.Eligible) resolution).node();
    Phase phase = alert.isFiring() ? Phase.FIRING : Phase.RESOLVED;
    if (isDuplicate(node, alert)) {
      return duplicate(alert, node.name(), playbook.name());
    }
    String note = "";
    if (phase == Phase.RESOLVED) {
      // The playbook that acted on this episode (an escalation target, say) decides its release.
      Optional<Playbook> acted = Optional.ofNullable(node.ledger().episodes().get(alert.fingerprint()))
          .filter(e -> e.startsAt().equals(alert.startsAt())).flatMap(e -> set.named(e.playbook()));
      if (acted.isPresent() && !acted.get().name().equals(playbook.name())) {
        note = "released by " + acted.get().name() + ", the playbook that acted on this episode; ";
        playbook = acted.get();
      }
    } else {
      Optional<Playbook> escalated = escalation(playbook, node, set);
      if (escalated.isPresent()) {
        note = "escalated from " + playbook.name() + " (episode " + playbook.escalate().orElseThrow().after() + " within "
            + io.gpuremediator.value.Durations.format(playbook.escalate().orElseThrow().within()) + "); ";
        playbook = escalated.get();
      }
    }
    List<ActionSpec> specs = phase == Phase.FIRING ? playbook.actions() : playbook.onResolved();
    if (specs.isEmpty()) {
      return decision(alert, node.name(), playbook.name(), Reason.NO_ON_RESOLVED,
          "playbook " + playbook.name() + " has no on_resolved; the node stays as it is for a human", List.of());
    }
    List<Step> steps;
    try {
      steps = prepare(specs, alert, node.name());
    } catch (RenderException e) {
      return decision(alert, node.name(), playbook.name(), Reason.TEMPLATE_INVALID, e.getMessage(), List.of());
    }
    if (node.ledgerError().isPresent()) {
      return decision(alert, node.name(), playbook.name(), Reason.NODE_STATE_UNREADABLE, node.ledgerError().get(), List.of());
    }
    Optional<Reason> dryRun = dryRunReason(playbook, specs);
    if (dryRun.isPresent()) {
      Optional<SafetyGate.Refusal> refusal = phase == Phase.FIRING ? gate.check(candidate(node, playbook)) : Optional.empty();
      List<ActionRecord> records = simulate(node, alert, phase, steps);
      String detail = note + refusal.map(r -> "would be refused: " + r.reason().code() + " (" + r.detail() + ")")
          .orElse("nothing written; the actions record what would have been done");
      return decision(alert, node.name(), playbook.name(), dryRun.get(), detail, records);
    }
    if (phase == Phase.RESOLVED) {
      return execute(alert, playbook, node.name(), phase, steps, specs, note);
    }
    Playbook chosen = playbook;
    String why = note;
    return gate.exclusively(() -> admitAndExecute(alert, chosen, node.name(), steps, specs, why));
  }

  /** Inside the gate's exclusivity: check the limits against the node as it is now, write, record the start. */
  private Decision admitAndExecute(Alert alert, Playbook playbook, String nodeName, List<Step> steps, List<ActionSpec> specs,
      String note) {
    NodeInfo node = cluster.node(nodeName).orElse(null);
    if (node == null) {
      return decision(alert, nodeName, playbook.name(), Reason.NODE_NOT_FOUND, "node " + nodeName + " no longer exists", List.of());
    }
    if (isDuplicate(node, alert)) {
      return duplicate(alert, nodeName, playbook.name());
    }
    SafetyGate.Candidate candidate = candidate(node, playbook);
    Optional<SafetyGate.Refusal> refusal = gate.check(candidate);
    if (refusal.isPresent()) {
      return decision(alert, nodeName, playbook.name(), refusal.get().reason(), note + refusal.get().detail(), List.of());
    }
    Decision done = execute(alert, playbook, nodeName, Phase.FIRING, steps, specs, note);
    if (candidate.becomesUnavailable() && done.reason() == Reason.ACTIONS_APPLIED) {
      gate.started(nodeName, playbook.name());
    }
    return done;
  }

  /** A node becomes unavailable only when it is available now and the playbook cordons or taints it out. */
  private static SafetyGate.Candidate candidate(NodeInfo node, Playbook playbook) {
    return new SafetyGate.Candidate(node, playbook.name(), quarantines(playbook) && !FleetGate.isUnavailable(node),
        playbook.rateLimit(), playbook.cooldown());
  }

  private static boolean quarantines(Playbook playbook) {
    for (ActionSpec a : playbook.actions()) {
      if (!a.dryRun() && (a instanceof ActionSpec.CordonSpec
          || (a instanceof ActionSpec.TaintSpec t && t.effect() != io.gpuremediator.node.TaintEffect.PREFER_NO_SCHEDULE))) {
        return true;
      }
    }
    return false;
  }

  /** The playbook a repeat offender is escalated to: the Nth episode of this playbook on the node within the window. */
  private Optional<Playbook> escalation(Playbook playbook, NodeInfo node, PlaybookSet set) {
    if (playbook.escalate().isEmpty()) {
      return Optional.empty();
    }
    Playbook.Escalation e = playbook.escalate().get();
    int earlier = node.ledger().episodesSince(playbook.name(), clock.instant().minus(e.within()));
    return earlier + 1 >= e.after() ? set.named(e.to()) : Optional.empty();
  }

  /** Whether this exact episode was already handled: firing and active, or already released. */
  private static boolean isDuplicate(NodeInfo node, Alert alert) {
    NodeLedger.Episode active = node.ledger().episodes().get(alert.fingerprint());
    if (alert.isFiring() && active != null && active.startsAt().equals(alert.startsAt())) {
      return true;
    }
    for (NodeLedger.PastEpisode p : node.ledger().history()) {
      if (p.fingerprint().equals(alert.fingerprint()) && p.startsAt().equals(alert.startsAt())) {
        return true;
      }
    }
    return false;
  }

  private Decision duplicate(Alert alert, String node, String playbook) {
    return decision(alert, node, playbook, Reason.DUPLICATE_EPISODE,
        "episode " + alert.fingerprint() + "@" + alert.startsAt() + " was already handled on this node", List.of());
  }

  private List<Step> prepare(List<ActionSpec> specs, Alert alert, String node) throws RenderException {
    TemplateContext ctx = new TemplateContext(alert.labels(), alert.annotations(), node, alert.alertname(), alert.fingerprint());
    List<Step> steps = new ArrayList<>(specs.size());
    for (ActionSpec spec : specs) {
      steps.add(ActionRegistry.prepare(spec, ctx));
    }
    return steps;
  }

  private Optional<Reason> dryRunReason(Playbook playbook, List<ActionSpec> specs) {
    if (globalDryRun) {
      return Optional.of(Reason.DRY_RUN_GLOBAL);
    }
    if (playbook.dryRun()) {
      return Optional.of(Reason.DRY_RUN_PLAYBOOK);
    }
    if (specs.stream().allMatch(ActionSpec::dryRun)) {
      return Optional.of(Reason.DRY_RUN_ACTION);
    }
    return Optional.empty();
  }

  private List<ActionRecord> simulate(NodeInfo node, Alert alert, Phase phase, List<Step> steps) {
    NodeDraft draft = new NodeDraft(node, alert.fingerprint(), phase, clock.instant());
    List<ActionRecord> records = new ArrayList<>(steps.size());
    for (Step step : steps) {
      records.add(dryRunOf(step.apply(draft)));
    }
    return records;
  }

  private Decision execute(Alert alert, Playbook playbook, String nodeName, Phase phase, List<Step> steps,
      List<ActionSpec> specs, String note) {
    ReentrantLock lock = locks[Math.floorMod(nodeName.hashCode(), LOCK_STRIPES)];
    lock.lock();
    long started = System.nanoTime();
    try {
      Applied applied = cluster.modifyNode(nodeName, fresh -> applyAll(fresh, alert, playbook, phase, steps, specs));
      if (applied.duplicate()) {
        return duplicate(alert, nodeName, playbook.name());
      }
      double writeSeconds = (System.nanoTime() - started) / 1e9;
      List<ActionRecord> records = new ArrayList<>(applied.records());
      String detail = note + recordEvents(applied.events(), records);
      for (ActionRecord r : records) {
        if (!r.type().equals("event")) {
          listener.actionTimed(r.type(), r.outcome(), writeSeconds);
        }
      }
      boolean changed = records.stream().anyMatch(r -> r.outcome().equals("applied"));
      Reason reason = phase == Phase.RESOLVED ? Reason.RESOLVED_ACTIONS_APPLIED
          : changed ? Reason.ACTIONS_APPLIED : Reason.NO_CHANGE;
      return decision(alert, nodeName, playbook.name(), reason, detail, records);
    } catch (ClusterException e) {
      Reason reason = e.isTransient() ? Reason.KUBE_UNAVAILABLE : Reason.KUBE_REJECTED;
      List<ActionRecord> notRun = specs.stream().map(s -> new ActionRecord(s.kind(), "not_run", "")).toList();
      return decision(alert, nodeName, playbook.name(), reason, e.getMessage(), notRun);
    } finally {
      lock.unlock();
    }
  }

  private Edited<Applied> applyAll(NodeInfo fresh, Alert alert, Playbook playbook, Phase phase, List<Step> steps,
      List<ActionSpec> specs) {
    if (isDuplicate(fresh, alert)) {
      // Authoritative: another thread or instance handled this episode since our cached read.
      return new Edited<>(fresh, new Applied(List.of(), List.of(), true));
    }
    Instant now = clock.instant();
    NodeDraft draft = new NodeDraft(fresh, alert.fingerprint(), phase, now);
    List<ActionRecord> records = new ArrayList<>(steps.size());
    for (int i = 0; i < steps.size(); i++) {
      records.add(specs.get(i).dryRun() ? dryRunOf(steps.get(i).apply(draft.copy())) : steps.get(i).apply(draft));
    }
    draft.ledger(track(draft.ledger(), alert, playbook, phase, now));
    return new Edited<>(draft.toNode(), new Applied(records, draft.events(), false));
  }

  private static NodeLedger track(NodeLedger ledger, Alert alert, Playbook playbook, Phase phase, Instant now) {
    if (phase == Phase.RESOLVED) {
      return ledger.released(alert.fingerprint(), now);
    }
    Episode known = ledger.episodes().get(alert.fingerprint());
    if (known != null && known.startsAt().equals(alert.startsAt()) && known.playbook().equals(playbook.name())) {
      return ledger;
    }
    return ledger.withEpisode(new Episode(alert.fingerprint(), alert.alertname(), playbook.name(), alert.startsAt(), now));
  }

  /** Records the Events the actions asked for; a failed Event does not undo the node change, but is reported. */
  private String recordEvents(List<NodeEvent> events, List<ActionRecord> records) {
    List<String> failures = new ArrayList<>();
    int next = 0;
    for (NodeEvent event : events) {
      long started = System.nanoTime();
      String outcome = "applied";
      try {
        cluster.recordEvent(event);
      } catch (ClusterException e) {
        outcome = "failed";
        failures.add(e.getMessage());
        LOGGER.warn("event {} on node {} not recorded: {}", event.reason(), event.node(), e.getMessage());
      }
      listener.actionTimed("event", outcome, (System.nanoTime() - started) / 1e9);
      next = markEvent(records, next, outcome);
    }
    return failures.isEmpty() ? "" : "event not recorded: " + String.join("; ", failures);
  }

  private static int markEvent(List<ActionRecord> records, int from, String outcome) {
    for (int i = from; i < records.size(); i++) {
      ActionRecord r = records.get(i);
      if (r.type().equals("event") && r.outcome().equals("applied")) {
        records.set(i, new ActionRecord(r.type(), outcome, r.change()));
        return i + 1;
      }
    }
    return records.size();
  }

  private static ActionRecord dryRunOf(ActionRecord record) {
    return record.outcome().equals("applied") ? record.asDryRun() : record;
  }

  private Decision decision(Alert alert, String node, String playbook, Reason reason, String detail,
      List<ActionRecord> actions) {
    return new Decision(clock.instant(), alert.fingerprint(), alert.startsAt(), alert.alertname(), alert.status().code(),
        node, playbook, reason, detail, actions);
  }

  private record Applied(List<ActionRecord> records, List<NodeEvent> events, boolean duplicate) {}
}
