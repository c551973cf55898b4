package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.action.NotifyAction.NotifySpec;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.action.SilenceAction.SilenceSpec;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.Notifier.Notification;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.SilenceRequest;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.HeldSilence;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an episode does outside Kubernetes once its cursor has passed a step: the silences it holds (created, and
 * renewed before they end; once no episode holds one, {@link GiveBacks} expires it) and the notifications it sends. Never a gate: a failure
 * is retried with backoff on later looks while the episode goes on.
 *
 * <p>Each is recorded in the episode's ledger (a holding, a notified step), so a restart or a new leader neither loses nor
 * repeats it. A silence is recorded after Alertmanager answered, and found again by the marker at the end of its
 * comment when that record was lost; a notification is recorded before it is queued (sent at most once).
 */
final class EpisodeOutbound {
  private static final Logger LOGGER = LoggerFactory.getLogger(EpisodeOutbound.class);
  private static final String CREATED_BY = Silences.CREATED_BY;

  /** Says what happened, as a decision of the episode. */
  @FunctionalInterface
  interface Decider {
    void decide(String node, Episode e, Reason reason, String detail);
  }

  private final OutboundPorts ports;
  private final EpisodeWriter writer;
  private final Decider decider;
  private final List<String> page;
  private final RetryBackoff backoffs = new RetryBackoff();

  /** A notification names the evidence Jobs the episode holds, and where their reports are stored. */
  EpisodeOutbound(OutboundPorts ports, EpisodeWriter writer, Decider decider, List<String> page) {
    this.page = List.copyOf(page);
    this.ports = ports;
    this.writer = writer;
    this.decider = decider;
  }

  /** A step the episode's cursor has passed, by its stable key. */
  record Reached(String key, ActionSpec spec) {}

  /** The steps of the playbook the episode has passed, in order. */
  static List<Reached> reached(Episode e, Playbook pb) {
    Progress p = e.progress();
    List<Reached> out = new ArrayList<>();
    int firing = p.releasing() ? pb.actions().size() : (int) Math.min((long) p.next(), pb.actions().size());
    for (int i = 0; i < firing; i++) {
      out.add(new Reached(Episode.stepKey(pb.name(), false, i), pb.actions().get(i)));
    }
    if (p.releasing()) {
      int resolved = (int) Math.min((long) p.next(), pb.onResolved().size());
      for (int i = 0; i < resolved; i++) {
        out.add(new Reached(Episode.stepKey(pb.name(), true, i), pb.onResolved().get(i)));
      }
    }
    return out;
  }

  /** Whether the episode has a silence to create or renew, or a notification to send, now. */
  boolean due(Episode e, Playbook pb, Instant now) {
    for (Reached r : reached(e, pb)) {
      if (r.spec().dryRun()) {
        continue;
      }
      if (ActionRegistry.silence(r.spec()).filter(s -> silenceDue(e, r.key(), s, now)).isPresent()
          || ActionRegistry.notification(r.spec()).isPresent() && !e.notified(r.key())) {
        return true;
      }
    }
    return false;
  }

  private boolean silenceDue(Episode e, String key, SilenceSpec s, Instant now) {
    Optional<HeldSilence> held = e.silence(key);
    if (held.isEmpty()) {
      return !backoffs.waiting(e.fingerprint() + "/" + key, now);
    }
    return renewAt(held.get(), s).isBefore(now) && !backoffs.waiting(e.fingerprint() + "/" + key, now);
  }

  /** Renewed once two thirds of its time have passed. */
  private static Instant renewAt(HeldSilence held, SilenceSpec s) {
    return held.endsAt().minus(s.duration().dividedBy(3));
  }

  /** Creates or renews the episode's silences and sends its notifications; returns the episode as now written. */
  Episode keep(String node, Episode start, Playbook pb) throws ClusterException {
    Episode e = start;
    Instant now = writer.now();
    TemplateContext ctx = EpisodeWriter.context(node, e);
    List<String> evidence = new ArrayList<>();
    for (Reached r : reached(e, pb)) {
      if (e == null) {
        return null;
      }
      if (r.spec().dryRun()) {
        continue;
      }
      // The evidence Jobs the episode's collect steps hold, for the notifications of the steps after them.
      e.evidenceJob(r.key()).ifPresent(j -> evidence.add(j.job()
          + (j.storedAt().isEmpty() ? "" : ", its report stored at " + j.storedAt())));
      Optional<SilenceSpec> silence = ActionRegistry.silence(r.spec());
      Optional<NotifySpec> notify = ActionRegistry.notification(r.spec());
      if (silence.isPresent() && silenceDue(e, r.key(), silence.get(), now)) {
        e = holdSilence(node, e, r.key(), silence.get(), ctx, now);
      } else if (notify.isPresent() && !e.notified(r.key())) {
        e = notifyOnce(node, e, r.key(), notify.get(), ctx, evidence);
      }
    }
    return e;
  }

  private Episode holdSilence(String node, Episode e, String key, SilenceSpec s, TemplateContext ctx, Instant now)
      throws ClusterException {
    HeldSilence held = e.silence(key).orElse(null);
    String marker = "[" + CREATED_BY + " " + EpisodeNames.episodeHash(node, e) + " " + key + "]";
    String retryKey = e.fingerprint() + "/" + key;
    try {
      Instant endsAt = now.plus(s.duration());
      // A renewal keeps the start it was created with: Alertmanager updates an active silence in place only then
      // (else it expires it and answers a new one, starting now).
      Instant startsAt = held == null ? now : held.startsAt();
      SilenceRequest request = new SilenceRequest(ActionRegistry.silenceMatchers(s, ctx), startsAt, endsAt, CREATED_BY,
          ActionRegistry.silenceComment(s, ctx) + " " + marker);
      // One the ledger lost (its write failed after Alertmanager answered) is found by its marker and updated.
      Optional<String> id = held == null ? ports.silences().findByMarker(marker) : Optional.of(held.id());
      String given = ports.silences().put(id, request);
      backoffs.succeeded(retryKey);
      Episode next = e.withSilence(key, new HeldSilence(given, startsAt, endsAt));
      Episode written = writer.replace(node, e, next).flatMap(EpisodeWriter.Written::episode).orElse(null);
      if (written != null && held == null) {
        decider.decide(node, next, Reason.SILENCE_CREATED, "Alertmanager silence " + given + " holds "
            + request.matchers().stream().map(m -> m.name() + (m.isEqual() ? "=" : "!=") + (m.isRegex() ? "~" : "")
                + "\"" + m.value() + "\"").toList() + " until " + endsAt + (id.isPresent() ? " (found, created before a restart)" : ""));
      }
      return written;
    } catch (RenderException ex) {
      backoffs.holdOff(retryKey, 99, now);
      decider.decide(node, e, Reason.SILENCE_FAILED, "silence step " + key + " not held: " + ex.getMessage());
      return e;
    } catch (OutboundException ex) {
      RetryBackoff.State b = backoffs.failed(retryKey, now);
      if (b.failures() == 1) {
        decider.decide(node, e, Reason.SILENCE_FAILED, "silence step " + key + ": " + ex.getMessage()
            + (ex.retriable() ? "; retried with backoff, the episode goes on" : "; retried every " + RetryBackoff.MAX.toMinutes()
                + "m, the episode goes on"));
      }
      if (!ex.retriable()) {
        backoffs.holdOff(retryKey, b.failures(), now);
      }
      LOGGER.warn("silence {} for node {}: {} (attempt {})", key, node, ex.getMessage(), b.failures());
      return e;
    }
  }

  /** Sends a notify step's message once, naming the evidence Jobs of the steps before it (the collect contract). */
  private Episode notifyOnce(String node, Episode e, String key, NotifySpec n, TemplateContext ctx, List<String> evidence)
      throws ClusterException {
    Episode next = e.withNotified(key);
    Episode written = writer.replace(node, e, next).flatMap(EpisodeWriter.Written::episode).orElse(null);
    if (written != null) {
      String message = ActionRegistry.notifyMessage(n, ctx);
      send(new Notification(n.receiver(), evidence.isEmpty() ? message : message + " (evidence: job "
          + String.join(", job ", evidence) + ")", node, e.progress().stage().code(), "step"));
    }
    return written;
  }

  /** Tells the receivers that follow the episode's stage changes ({@code stage_changes: true}) of a new stage. */
  void stageChanged(String node, Episode e, Optional<Playbook> pb, Stage stage, Reason reason, String detail) {
    List<String> told = new ArrayList<>();
    if (stage == Stage.NEEDS_HUMAN) { // safety.page: people are paged when the loop gives up on a node
      told.addAll(page(node, e, stage, reason, detail));
    }
    if (pb.isEmpty()) {
      return;
    }
    for (List<ActionSpec> list : List.of(pb.get().actions(), pb.get().onResolved())) {
      for (ActionSpec spec : list) {
        Optional<NotifySpec> notify = ActionRegistry.notification(spec).filter(n -> n.stageChanges() && !n.dryRun());
        if (notify.isPresent() && !told.contains(notify.get().receiver())) {
          NotifySpec n = notify.get();
          told.add(n.receiver());
          send(new Notification(n.receiver(), node + " is " + stage.code() + " (" + e.playbook() + "): " + detail, node,
              stage.code(), reason.code()));
        }
      }
    }
  }

  /** Pages people ({@code safety.page}): the node needs a human; answers the receivers told. */
  List<String> page(String node, Episode e, Stage stage, Reason reason, String detail) {
    for (String receiver : page) {
      send(new Notification(receiver, node + " needs a human (" + e.playbook() + "): " + detail, node, stage.code(),
          reason.code()));
    }
    return page;
  }

  private void send(Notification n) {
    Notifier.Queued q = ports.notifier().send(n);
    if (q != Notifier.Queued.QUEUED) {
      LOGGER.warn("notification to {} about node {} not queued: {}", n.receiver(), n.node(), q);
    }
  }
}
