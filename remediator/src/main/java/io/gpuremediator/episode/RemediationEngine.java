package io.gpuremediator.episode;

import io.gpuremediator.action.PreparedAction;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.Foreground;
import io.gpuremediator.node.LedgerFault;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.node.Resolution;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.safety.GpuBudget;
import io.gpuremediator.safety.SafetyGate;
import io.gpuremediator.state.LedgerLimits;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Turns alerts into decisions and node changes: the chain of checks every alert goes through, the safety gate's
 * admission, and then one write of the node ({@link AlertWrite}). Thread-safe: the writes of one node are serialised
 * by holding it, and use optimistic concurrency against other instances.
 */
public final class RemediationEngine {

  private final Supplier<PlaybookSet> playbooks;
  private final LedgerLimits ledgerLimits;
  private final Cluster cluster;
  private final NodeResolver resolver;
  private final boolean globalDryRun;
  private final SafetyGate gate;
  private final DecisionListener listener;
  private final Clock clock;
  private final AlertDecisions decisions;
  private final AlertWrite write;
  private final EpisodeAdmission admission;
  private final EngineDryRun dryRuns;
  private final List<DeferRule> deferTo;
  private final AlertScope scope;
  private final NodeFanOut fanOut;
  /** The steps every alert goes through, in order (built once: a webhook runs them 200 times). */
  private final List<DecisionStep> chain = List.of(this::requireAccepted, this::matchPlaybook, this::requireEligibleNode,
      this::skipKnownEpisode, this::chooseActingPlaybook, this::chooseActions, this::refuseWhileStopped,
      this::renderActions, this::requireReadableLedger, this::requireLedgerRoom, this::dryRun);

  /** Built by {@link EngineBuilder}, which says what each part is. */
  RemediationEngine(Supplier<PlaybookSet> playbooks, Cluster cluster, NodeResolver resolver, Clock clock, boolean globalDryRun,
      SafetyGate gate, DecisionListener listener, BooleanSupplier mayWrite, NodeExclusion exclusion, AlertScope scope,
      NodeFanOut fanOut, List<DeferRule> deferTo, Optional<StepPorts> ports, LedgerLimits ledgerLimits) {
    this.deferTo = List.copyOf(deferTo);
    this.ledgerLimits = ledgerLimits;
    this.scope = scope;
    this.fanOut = fanOut;
    this.playbooks = playbooks;
    this.cluster = cluster;
    this.resolver = resolver;
    this.globalDryRun = globalDryRun;
    this.gate = gate;
    this.listener = listener;
    this.clock = clock;
    this.decisions = new AlertDecisions(clock);
    this.write = new AlertWrite(cluster, clock, mayWrite, listener, exclusion, decisions, ledgerLimits);
    this.admission = new EpisodeAdmission(cluster, gate, write, decisions,
        ports.map(p -> p.limits().gpus()).orElse(GpuBudget.none()));
    this.dryRuns = new EngineDryRun(globalDryRun, gate, ports, decisions);
  }

  /**
   * Decides every alert of a webhook, each by its own status. First the nodes of all new episodes of
   * remediation alerts are shown to the safety gate together, so a storm in one payload opens the
   * breaker before any of its nodes is acted on.
   */
  public WebhookResult handle(WebhookMessage message) {
    return handle(message, scope);
  }

  /**
   * The same for alerts this service raised itself (cloud maintenance of its own selected nodes): ours by construction,
   * so {@code accept_alerts}, which tells a shared Alertmanager's other clusters apart, does not apply.
   */
  public WebhookResult handleOwn(WebhookMessage message) {
    return handle(message, AlertScope.ALL);
  }

  private WebhookResult handle(WebhookMessage message, AlertScope scope) {
    PlaybookSet set = playbooks.get();
    List<Candidate> candidates = new ArrayList<>(message.alerts().size());
    Map<String, Instant> firing = new LinkedHashMap<>();
    for (Alert alert : message.alerts()) {
      // Another cluster's alert: its node is not looked up (the same name may be one of ours), nor counted.
      Resolution resolution = scope.outside(alert).orElseGet(() -> resolver.resolve(alert.labels()));
      // A playbook's node matchers (match_node) are matched against the Node the alert resolves to.
      Map<String, String> nodeLabels = resolution instanceof Resolution.Eligible e ? e.node().labels() : Map.of();
      Candidate c = new Candidate(alert, set.firstMatch(alert.labels(), nodeLabels), resolution);
      candidates.add(c);
      // Only new episodes can make a storm: Alertmanager re-sends the ones the ledger knows with every group change.
      if (alert.isFiring() && c.playbook().isPresent() && c.resolution() instanceof Resolution.Eligible e
          && !EpisodeAdmission.isDuplicate(e.node(), alert)) {
        firing.merge(e.node().name(), alert.startsAt(), (a, b) -> a.isAfter(b) ? a : b);
      }
    }
    if (!firing.isEmpty()) {
      gate.observe(firing);
    }
    List<Decision> decisions = new ArrayList<>(candidates.size());
    try {
      if (globalDryRun || gate.stopped().isPresent()) {
        candidates.forEach(c -> decisions.add(evaluate(c, set))); // nothing is written: no reason to wait on threads
      } else {
        // Alerts that resolve to no node write nothing: one group, decided in order.
        fanOut.decide(candidates, c -> c.resolution() instanceof Resolution.Eligible e ? e.node().name() : "",
            c -> Foreground.run(() -> evaluate(c, set)), decisions); // Alertmanager waits: served first
      }
    } finally {
      listener.decidedAll(decisions); // what was decided is recorded even if a later alert failed
    }
    return new WebhookResult(decisions);
  }

  /** Decides one alert against the current playbooks, as a webhook of its own. */
  public Decision decide(Alert alert) {
    return handle(new WebhookMessage("", alert.status(), "", 0, Map.of(), List.of(alert))).decisions().get(0);
  }

  /** An alert with its playbook and node, found once per webhook. */
  private record Candidate(Alert alert, Optional<Playbook> playbook, Resolution resolution) {}

  /** What one decision has found out so far; each step of the chain reads it and fills in more. */
  private static final class Evaluation {
    final Alert alert;
    final Resolution resolution;
    final PlaybookSet set;
    final Phase phase;
    /** The playbook the alert matched; {@link #playbook} runs it (another after a repeat offender's escalation). */
    final String matched;
    Playbook playbook;
    NodeInfo node;
    String note = "";
    List<ActionSpec> specs;
    List<PreparedAction> steps;

    Evaluation(Candidate c, PlaybookSet set) {
      this.alert = c.alert();
      this.resolution = c.resolution();
      this.set = set;
      this.phase = alert.isFiring() ? Phase.FIRING : Phase.RESOLVED;
      this.playbook = c.playbook().orElse(null);
      this.matched = playbook == null ? "" : playbook.name();
    }
  }

  /** One step of a decision: decides (and the chain stops) or hands on to the next. */
  @FunctionalInterface
  private interface DecisionStep {
    Optional<Decision> run(Evaluation e);
  }

  /** The chain of steps every alert goes through, in order; {@code docs/episodes.md} describes each. */
  private Decision evaluate(Candidate c, PlaybookSet set) {
    Evaluation e = new Evaluation(c, set);
    for (int i = 0; i < chain.size(); i++) {
      Optional<Decision> decided = chain.get(i).run(e);
      if (decided.isPresent()) {
        return decided.get();
      }
    }
    if (e.phase == Phase.RESOLVED) {
      return write.execute(e.alert, e.playbook, e.node.name(), e.phase, e.steps, e.specs, e.note, e.matched);
    }
    return admission.admitAndExecute(e.alert, e.playbook, e.node.name(), e.steps, e.specs, e.note, e.matched);
  }

  private Optional<Decision> requireAccepted(Evaluation e) {
    return AlertScope.isForeign(e.resolution) ? Optional.of(decision(e.alert, "", "", Reason.FOREIGN_ALERT,
        ((Resolution.Ineligible) e.resolution).detail(), List.of())) : Optional.empty();
  }

  private Optional<Decision> matchPlaybook(Evaluation e) {
    return e.playbook != null ? Optional.empty() : Optional.of(decision(e.alert, e.resolution.nodeName(), "",
        Reason.NO_PLAYBOOK, "no playbook matches the alert's labels", List.of()));
  }

  private Optional<Decision> requireEligibleNode(Evaluation e) {
    if (e.resolution instanceof Resolution.Ineligible no) {
      return Optional.of(decision(e.alert, no.nodeName(), e.playbook.name(), no.reason(), no.detail(), List.of()));
    }
    e.node = ((Resolution.Eligible) e.resolution).node();
    return Optional.empty();
  }

  private Optional<Decision> skipKnownEpisode(Evaluation e) {
    return EpisodeAdmission.isDuplicate(e.node, e.alert) ? Optional.of(decisions.duplicate(e.alert, e.node.name(),
        e.playbook.name())) : e.phase == Phase.FIRING ? DeferRule.firstRule(deferTo, e.node).filter(r -> r.deadline().isEmpty())
        .map(sign -> decision(e.alert, e.node.name(), e.playbook.name(), Reason.DEFERRED, e.node.name() + " shows "
        + sign.describe() + ": another system owns its repair (defer_to); no episode of ours", List.of()))
        : Optional.empty();
  }

  /** A resolved episode is released by the playbook that acted on it; a repeat offender runs the escalation. */
  private Optional<Decision> chooseActingPlaybook(Evaluation e) {
    ActingPlaybook.Choice choice = ActingPlaybook.of(e.alert, e.playbook, e.node, e.set, clock.instant());
    if (choice instanceof ActingPlaybook.OtherEpisode other) {
      return Optional.of(decision(e.alert, e.node.name(), e.playbook.name(), Reason.RESOLVED_OTHER_EPISODE,
          other.detail(), List.of()));
    }
    ActingPlaybook.Acting acting = (ActingPlaybook.Acting) choice;
    e.playbook = acting.playbook();
    e.note = acting.note();
    return Optional.empty();
  }

  private Optional<Decision> chooseActions(Evaluation e) {
    e.specs = e.phase == Phase.FIRING ? e.playbook.actions() : e.playbook.onResolved();
    return !e.specs.isEmpty() ? Optional.empty() : Optional.of(decision(e.alert, e.node.name(), e.playbook.name(),
        Reason.NO_ON_RESOLVED, "playbook " + e.playbook.name() + " has no on_resolved; the node stays as it is for a human",
        List.of()));
  }

  /** Paused, the breaker open, or no state: a new episode is refused before anything is rendered (a dry-run names it). */
  private Optional<Decision> refuseWhileStopped(Evaluation e) {
    if (e.phase != Phase.FIRING || dryRuns.reason(e.playbook, e.specs).isPresent()) {
      return Optional.empty();
    }
    return gate.stopped().map(r -> decision(e.alert, e.node.name(), e.playbook.name(), r.reason(),
        e.note.isEmpty() ? r.detail() : e.note + r.detail(), List.of()));
  }

  /** Every action is rendered and checked before anything is written: no partial action. */
  private Optional<Decision> renderActions(Evaluation e) {
    try {
      e.steps = prepare(e.specs, e.alert, e.node.name());
      return Optional.empty();
    } catch (RenderException ex) {
      return Optional.of(decision(e.alert, e.node.name(), e.playbook.name(), Reason.TEMPLATE_INVALID, ex.getMessage(),
          List.of()));
    }
  }

  private Optional<Decision> requireReadableLedger(Evaluation e) {
    return e.node.ledgerFault().map(fault -> decision(e.alert, e.node.name(), e.playbook.name(),
        fault.kind() == LedgerFault.Kind.UNREADABLE ? Reason.NODE_STATE_UNREADABLE : Reason.LEDGER_UNTRUSTED,
        fault.message(), List.of()));
  }

  /** A new episode the node's ledger has no room for is refused: past 256 KiB the node could not be written again. */
  private Optional<Decision> requireLedgerRoom(Evaluation e) {
    return e.phase != Phase.FIRING || e.node.ledger().episodes().containsKey(e.alert.fingerprint()) ? Optional.empty()
        : ledgerLimits.refusal(e.node.ledger(), e.alert.labels(), e.alert.annotations()).map(why -> decision(e.alert,
            e.node.name(), e.playbook.name(), Reason.LEDGER_FULL, why + LedgerLimits.NOT_OPENED, List.of()));
  }

  /** A dry-run writes nothing; it records what would change and which limit would refuse a new episode. */
  private Optional<Decision> dryRun(Evaluation e) {
    return dryRuns.decide(e.alert, e.node, e.playbook, e.phase, e.specs, e.steps, e.note);
  }

  private static List<PreparedAction> prepare(List<ActionSpec> specs, Alert alert, String node) throws RenderException {
    return StepRecords.prepare(specs, new TemplateContext(alert.labels(), alert.annotations(), node, alert.alertname(),
        alert.fingerprint()));
  }

  private Decision decision(Alert alert, String node, String playbook, Reason reason, String detail,
      List<ActionRecord> actions) {
    return decisions.decision(alert, node, playbook, reason, detail, actions);
  }
}
