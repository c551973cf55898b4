package io.gpuremediator.episode;

import io.gpuremediator.action.NodeDraft;
import io.gpuremediator.action.PreparedAction;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.Cluster.Edited;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.LedgerLimits;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.PastEpisode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The webhook's one write of a node for one alert, holding the node ({@link NodeExclusion}) for the write and its
 * Events: the immediate steps run on the freshly read node, the episode is opened, resolved or released in its ledger
 * (moves of the {@link Transition} table), and the long steps are left to the background loop, which looks at the node
 * once this write has let it go.
 */
final class AlertWrite {
  /** How long a webhook waits for another change to the node (a look of the loop, a human's release) to end. */
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final Cluster cluster;
  private final Clock clock;
  private final BooleanSupplier mayWrite;
  private final DecisionListener listener;
  private final NodeEvents events;
  private final NodeExclusion exclusion;
  private final AlertDecisions decisions;
  private final EpisodeDecisions episodeDecisions;
  private final LedgerLimits ledgerLimits;

  AlertWrite(Cluster cluster, Clock clock, BooleanSupplier mayWrite, DecisionListener listener, NodeExclusion exclusion,
      AlertDecisions decisions, LedgerLimits ledgerLimits) {
    this.ledgerLimits = ledgerLimits;
    this.cluster = cluster;
    this.clock = clock;
    this.mayWrite = mayWrite;
    this.listener = listener;
    this.events = new NodeEvents(cluster);
    this.episodeDecisions = new EpisodeDecisions(listener, events, clock);
    this.exclusion = exclusion;
    this.decisions = decisions;
  }

  /**
   * What one write did: the records, the Events to record, and what is left to the background; the episode it
   * released, and how long after the node's previous episode the one it opened started.
   */
  private record Applied(List<ActionRecord> records, List<NodeEvent> events, boolean duplicate, String later,
      boolean releaseWaits, boolean notLeader, Optional<Episode> released, Optional<Duration> sincePrevious,
      Map<Episode, String> overridden, Optional<String> ledgerFull) {
    Applied(List<ActionRecord> records, List<NodeEvent> events, boolean duplicate, String later, boolean releaseWaits,
        boolean notLeader) {
      this(records, events, duplicate, later, releaseWaits, notLeader, Optional.empty(), Optional.empty(), Map.of(),
          Optional.empty());
    }

    /** Nothing written: the node's ledger, read fresh, has no room for the episode. */
    static Applied full(String why) {
      return new Applied(List.of(), List.of(), false, "", false, false, Optional.empty(), Optional.empty(), Map.of(),
          Optional.of(why));
    }
  }

  /** Writes the node for the alert, holding it; decides what was done. */
  Decision execute(Alert alert, Playbook playbook, String nodeName, Phase phase, List<PreparedAction> steps, List<ActionSpec> specs,
      String note, String matched) {
    Decision[] done = new Decision[1];
    boolean held = exclusion.holding(nodeName, WAIT, () -> done[0] = write(alert, playbook, nodeName, phase, steps, specs,
        note, matched));
    return held ? done[0] : decisions.decision(alert, nodeName, playbook.name(), Reason.KUBE_UNAVAILABLE, "another change"
        + " to node " + nodeName + " did not end within " + WAIT.toSeconds() + "s; nothing written (Alertmanager retries)",
        specs.stream().map(s -> new ActionRecord(s.kind(), StepOutcome.NOT_RUN, "")).toList());
  }

  private Decision write(Alert alert, Playbook playbook, String nodeName, Phase phase, List<PreparedAction> steps,
      List<ActionSpec> specs, String note, String matched) {
    long started = System.nanoTime();
    try {
      Applied applied = cluster.modifyNode(nodeName, fresh -> applyAll(fresh, alert, playbook, phase, steps, specs,
          matched));
      if (applied.duplicate()) {
        return decisions.duplicate(alert, nodeName, playbook.name());
      }
      if (applied.ledgerFull().isPresent()) {
        return decisions.decision(alert, nodeName, playbook.name(), Reason.LEDGER_FULL, applied.ledgerFull().get()
            + LedgerLimits.NOT_OPENED, List.of());
      }
      if (applied.notLeader()) {
        return decisions.decision(alert, nodeName, playbook.name(), Reason.NOT_LEADER,
            "this instance no longer leads; nothing written (Alertmanager retries against the leader)", List.of());
      }
      double writeSeconds = (System.nanoTime() - started) / 1e9;
      List<ActionRecord> records = new ArrayList<>(applied.records());
      events.queueActions(applied.events(), records, listener);
      String detail = note + applied.later();
      for (ActionRecord r : records) {
        if (!r.type().equals(StepRecords.EVENT)) {
          listener.actionTimed(r.type(), r.outcome().code(), writeSeconds);
        }
      }
      applied.released().ifPresent(e -> listener.episodeEnded(e.playbook(), "released", "automatic",
          Duration.between(e.startsAt(), clock.instant()).toMillis() / 1000.0));
      applied.overridden().forEach((e, what) -> episodeDecisions.decide(nodeName, e, Reason.HUMAN_OVERRIDE,
          HumanOverride.detail(e, what), List.of(), Optional.of(Stage.RELEASED)));
      applied.sincePrevious().ifPresent(d -> listener.incidentInterval(d.toMillis() / 1000.0));
      boolean changed = records.stream().anyMatch(r -> r.outcome() == StepOutcome.APPLIED
          || r.type().equals(StepRecords.EVENT) && r.outcome() == StepOutcome.PENDING); // an Event queued is a change to come
      Reason reason = applied.releaseWaits() ? Reason.RELEASE_PENDING : phase == Phase.RESOLVED ? Reason.RESOLVED_ACTIONS_APPLIED
          : changed ? Reason.ACTIONS_APPLIED : Reason.NO_CHANGE;
      return decisions.decision(alert, nodeName, playbook.name(), reason, detail, records);
    } catch (ClusterException e) {
      Reason reason = e.isTransient() ? Reason.KUBE_UNAVAILABLE : Reason.KUBE_REJECTED;
      List<ActionRecord> notRun = specs.stream().map(s -> new ActionRecord(s.kind(), StepOutcome.NOT_RUN, "")).toList();
      return decisions.decision(alert, nodeName, playbook.name(), reason, e.getMessage(), notRun);
    }
  }

  private Edited<Applied> applyAll(NodeInfo fresh, Alert alert, Playbook playbook, Phase phase, List<PreparedAction> steps,
      List<ActionSpec> specs, String matched) {
    if (fresh.ledger().handled(alert.fingerprint(), alert.startsAt(), alert.isFiring())) {
      // Authoritative: another thread or instance handled this episode since our cached read.
      return new Edited<>(fresh, new Applied(List.of(), List.of(), true, "", false, false));
    }
    if (!mayWrite.getAsBoolean()) {
      // Leadership lapsed while this webhook was decided (a pause past the Lease, say): the new leader acts.
      return new Edited<>(fresh, new Applied(List.of(), List.of(), false, "", false, true));
    }
    Instant now = clock.instant();
    // A human took the node back from an episode the loop has not looked at since: it ends in this write, before this
    // alert acts, so it never finds its changes back on the node and carries on.
    Map<Episode, String> overridden = new LinkedHashMap<>();
    NodeInfo base = fresh;
    for (Episode e : fresh.ledger().episodes().values()) {
      Optional<String> what = e.fingerprint().equals(alert.fingerprint()) ? Optional.empty() : HumanOverride.removed(fresh, e);
      // One holding fenced GPUs ends here only when this alert's episode can take them over (a firing one); else the
      // loop ends it, and gives its DeviceTaintRules back.
      if (what.isPresent() && (phase == Phase.FIRING || e.fenced().isEmpty())) {
        overridden.put(e, what.get());
        base = HumanOverride.ended(base, e, now);
      }
    }
    Episode active = fresh.ledger().episodes().get(alert.fingerprint());
    Optional<String> full = phase == Phase.FIRING && active == null
        ? ledgerLimits.refusal(base.ledger(), alert.labels(), alert.annotations()) : Optional.empty();
    if (full.isPresent()) {
      return new Edited<>(fresh, Applied.full(full.get()));
    }
    NodeDraft draft = new NodeDraft(base, alert.fingerprint(), phase, now);
    if (phase == Phase.RESOLVED && active != null) {
      Optional<String> waiting = Episodes.releaseWaitsFor(active, playbook);
      if (waiting.isPresent()) {
        // Releases wait for every earlier step: remember the resolution; the loop releases once they are done.
        Transition.RESOLVED.check(Optional.of(active.progress().stage()), active.progress().stage(), Optional.empty());
        draft.ledger(draft.ledger().withEpisode(active.with(active.progress().resolvedNow())));
        List<ActionRecord> later = StepRecords.apply(draft, specs, steps, 0, "", true);
        return new Edited<>(draft.toNode(), new Applied(later, List.of(), false, "the release waits: " + waiting.get(), true,
            false));
      }
    }
    // The steps that make the node safe run now; from the first long step (or, firing, the first status write) on, the
    // loop carries the list on in the background.
    boolean acts = phase == Phase.FIRING || active != null;
    int loopFrom = acts ? Episodes.loopTakesOver(specs, phase) : specs.size();
    List<ActionRecord> records = StepRecords.apply(draft, specs, steps, loopFrom, StepRecords.NO_EPISODE, acts);
    NodeLedger before = draft.ledger();
    draft.ledger(track(before, alert, playbook, matched, phase, now, loopFrom < specs.size() ? loopFrom
        : Progress.DONE, ledgerLimits));
    for (Episode ended : overridden.keySet()) { // the GPUs it fenced stay fenced, held by this alert's episode
      Episode mine = draft.ledger().episodes().get(alert.fingerprint());
      if (!ended.fenced().isEmpty() && mine != null) {
        draft.ledger(draft.ledger().withEpisode(mine.handedOver(ended, FencedGpu.KIND)));
      }
    }
    String background = loopFrom < specs.size()
        ? specs.get(loopFrom).kind() + (specs.size() - loopFrom > 1 ? " and " + (specs.size() - loopFrom - 1) + " more steps" : "")
            + " continue in the background" : "";
    Optional<Episode> released = phase == Phase.RESOLVED && active != null
        && !draft.ledger().episodes().containsKey(alert.fingerprint()) ? Optional.of(active) : Optional.empty();
    Episode opened = draft.ledger().episodes().get(alert.fingerprint());
    Optional<Duration> sincePrevious = phase == Phase.FIRING && opened != null && !before.episodes().containsValue(opened)
        ? previousStart(before).map(p -> Duration.between(p, alert.startsAt())).filter(d -> !d.isNegative())
        : Optional.empty();
    return new Edited<>(draft.toNode(), new Applied(records, draft.events(), false, background, false, false, released,
        sincePrevious, overridden, Optional.empty()));
  }

  /** When the node's latest episode before this one started: active or past, from its ledger. */
  private static Optional<Instant> previousStart(NodeLedger ledger) {
    Instant latest = null;
    for (Episode e : ledger.episodes().values()) {
      latest = latest == null || e.startsAt().isAfter(latest) ? e.startsAt() : latest;
    }
    for (PastEpisode p : ledger.history()) {
      latest = latest == null || p.startsAt().isAfter(latest) ? p.startsAt() : latest;
    }
    return Optional.ofNullable(latest);
  }

  /**
   * Records the episode: a new firing episode with its cursor at the first long step (or done); a resolution released
   * at once when {@code on_resolved} has no long step, else releasing from there.
   */
  private static NodeLedger track(NodeLedger ledger, Alert alert, Playbook playbook, String matched, Phase phase,
      Instant now, int next, LedgerLimits limits) {
    Episode known = ledger.episodes().get(alert.fingerprint());
    if (phase == Phase.RESOLVED) {
      if (known == null) {
        return ledger.released(alert.fingerprint(), now);
      }
      Stage stage = known.progress().stage();
      if (next == Progress.DONE) {
        Transition.RELEASED.check(Optional.of(stage), Stage.RELEASED, Optional.empty());
        return ledger.released(alert.fingerprint(), now);
      }
      Transition.RESOLVED.check(Optional.of(stage), stage, Optional.empty());
      return ledger.withEpisode(known.with(known.progress().releasingFromStart().at(next)));
    }
    if (known != null && known.startsAt().equals(alert.startsAt()) && known.playbook().equals(playbook.name())) {
      return ledger;
    }
    Transition.OPENED.check(Optional.empty(), Stage.QUARANTINED, Optional.empty());
    Progress progress = Progress.startingIn(Stage.QUARANTINED, now, next, "");
    boolean later = Episodes.hasBackgroundSteps(playbook);
    // The same alert firing again with a new start is a new episode; the old one goes to history, so a late
    // re-send of it stays a duplicate.
    NodeLedger base = known != null && !known.startsAt().equals(alert.startsAt()) ? ledger.released(alert.fingerprint(), now)
        : ledger;
    // The old one's fenced GPUs stay fenced, held by the new one: it gives them back, or fences them again (found).
    Episode opened = new Episode(alert.fingerprint(), alert.alertname(), playbook.name(), alert.startsAt(), now,
        progress, later ? alert.labels() : Map.of(), later ? LedgerLimits.kept(alert.annotations()) : Map.of(), matched);
    NodeLedger kept = base.withEpisode(known == null ? opened : opened.handedOver(known, FencedGpu.KIND));
    // Past its limit, the oldest ended episodes go first.
    while (LedgerLimits.bytes(kept) > limits.maxBytes() && !kept.history().isEmpty()) {
      kept = kept.withoutOldestPastEpisode();
    }
    return kept;
  }
}
