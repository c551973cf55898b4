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
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.NodeLedger.Episode;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
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

  /** Decides every alert of a webhook, each by its own status. */
  public WebhookResult handle(WebhookMessage message) {
    PlaybookSet set = playbooks.get();
    List<Decision> decisions = new ArrayList<>(message.alerts().size());
    for (Alert alert : message.alerts()) {
      decisions.add(decide(alert, set));
    }
    return new WebhookResult(decisions);
  }

  /** Decides one alert against the current playbooks. */
  public Decision decide(Alert alert) {
    return decide(alert, playbooks.get());
  }

  private Decision decide(Alert alert, PlaybookSet set) {
    Decision decision = evaluate(alert, set);
    listener.decided(decision);
    return decision;
  }

  private Decision evaluate(Alert alert, PlaybookSet set) {
    Optional<Playbook> match = set.firstMatch(alert.labels());
    Resolution resolution = resolver.resolve(alert.labels());
    if (match.isEmpty()) {
      return decision(alert, resolution.nodeName(), "", Reason.NO_PLAYBOOK, "no playbook matches the alert's labels", List.of());
    }
    Playbook playbook = match.get();
    if (resolution instanceof Resolution.Ineligible no) {
      return decision(alert, no.nodeName(), playbook.name(), no.reason(), no.detail(), List.of());
    }
    NodeInfo node = ((Resolution.Eligible) resolution).node();
    Phase phase = alert.isFiring() ? Phase.FIRING : Phase.RESOLVED;
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
    Optional<SafetyGate.Refusal> refusal = phase == Phase.FIRING ? gate.check(alert, playbook, node) : Optional.empty();
    if (refusal.isPresent() && dryRun.isEmpty()) {
      return decision(alert, node.name(), playbook.name(), refusal.get().reason(), refusal.get().detail(), List.of());
    }
    if (dryRun.isPresent()) {
      List<ActionRecord> records = simulate(node, alert, phase, steps, specs);
      String detail = refusal.map(r -> "would be refused: " + r.reason().code() + " (" + r.detail() + ")")
          .orElse("nothing written; the actions record what would have been done");
      return decision(alert, node.name(), playbook.name(), dryRun.get(), detail, records);
    }
    return execute(alert, playbook, node.name(), phase, steps, specs);
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

  private List<ActionRecord> simulate(NodeInfo node, Alert alert, Phase phase, List<Step> steps, List<ActionSpec> specs) {
    NodeDraft draft = new NodeDraft(node, alert.fingerprint(), phase, clock.instant());
    List<ActionRecord> records = new ArrayList<>(steps.size());
    for (Step step : steps) {
      records.add(dryRunOf(step.apply(draft)));
    }
    return records;
  }

  private Decision execute(Alert alert, Playbook playbook, String nodeName, Phase phase, List<Step> steps,
      List<ActionSpec> specs) {
    ReentrantLock lock = locks[Math.floorMod(nodeName.hashCode(), LOCK_STRIPES)];
    lock.lock();
    long started = System.nanoTime();
    try {
      Applied applied = cluster.modifyNode(nodeName, fresh -> applyAll(fresh, alert, playbook, phase, steps, specs));
      double writeSeconds = (System.nanoTime() - started) / 1e9;
      List<ActionRecord> records = new ArrayList<>(applied.records());
      String detail = recordEvents(applied.events(), records);
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
    Instant now = clock.instant();
    NodeDraft draft = new NodeDraft(fresh, alert.fingerprint(), phase, now);
    List<ActionRecord> records = new ArrayList<>(steps.size());
    for (int i = 0; i < steps.size(); i++) {
      records.add(specs.get(i).dryRun() ? dryRunOf(steps.get(i).apply(draft.copy())) : steps.get(i).apply(draft));
    }
    draft.ledger(track(draft.ledger(), alert, playbook, phase, now));
    return new Edited<>(draft.toNode(), new Applied(records, draft.events()));
  }

  private static NodeLedger track(NodeLedger ledger, Alert alert, Playbook playbook, Phase phase, Instant now) {
    if (phase == Phase.RESOLVED) {
      return ledger.withoutEpisode(alert.fingerprint());
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

  private record Applied(List<ActionRecord> records, List<NodeEvent> events) {}
}
