package io.gpuremediator.episode;

import io.gpuremediator.action.RenderException;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.episode.Episodes;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.ActionSpec.DiagnoseSpec;
import io.gpuremediator.playbook.ActionSpec.DrainSpec;
import io.gpuremediator.playbook.ActionSpec.ReplaceSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.NodeLedger.Episode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.state.Stage;
import io.gpuremediator.workload.Workloads;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries every episode on in the background: on a timer and whenever a node is {@linkplain #kick kicked}
 * (a watch event, the webhook). One node is advanced by one thread at a time (an in-flight mark per node,
 * no lock shared between nodes); only the leader advances anything, and every write is fenced
 * ({@link EpisodeWriter}). A look at an episode runs its steps in order until one must wait: a long step
 * under way, a drain slot, the alert's resolution, or a human.
 */
public final class EpisodeLoop implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(EpisodeLoop.class);
  /** The most steps one look advances an episode by; bounds a look whatever the playbook. */
  private static final int MAX_MOVES = 32;
  private static final int REMEMBERED = 10_000;

  private final Cluster cluster;
  private final Supplier<PlaybookSet> playbooks;
  private final Supplier<List<NodeInfo>> selected;
  private final LoopSettings settings;
  private final BooleanSupplier leading;
  private final LoopListener listener;
  private final EpisodeWriter writer;
  private final DrainStep drain;
  private final DiagnoseStep diagnose;
  private final DrainSlots slots;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<String> again = ConcurrentHashMap.newKeySet();
  private final Map<String, Boolean> noticed = java.util.Collections.synchronizedMap(
      new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > REMEMBERED;
        }
      });
  private final Workloads workloads;
  private final ReplaceStep replaceStep;
  private final EpisodeOutbound outbound;
  private ScheduledExecutorService ticker;
  private ExecutorService workers;
  private AutoCloseable jobWatch;

  /**
   * Creates the loop; nothing runs until {@link #start()}.
   *
   * @param selected the nodes of node_selector (max_draining as a percentage counts them)
   * @param leading whether this instance leads (and its fleet state is loaded): only then is anything written
   */
  public EpisodeLoop(Cluster cluster, Workloads workloads, Supplier<PlaybookSet> playbooks,
      Supplier<List<NodeInfo>> selected, LoopSettings settings, BooleanSupplier leading, LoopListener listener,
      java.time.Clock clock) {
    this(cluster, workloads, playbooks, selected, settings, leading, listener, clock, OutsidePorts.NONE);
  }

  /**
   * Creates the loop with what it calls outside Kubernetes (silences, notifications, instance replacement).
   *
   * @param outside the ports of Alertmanager, the notifier, the cloud and the replacement budget
   */
  public EpisodeLoop(Cluster cluster, Workloads workloads, Supplier<PlaybookSet> playbooks,
      Supplier<List<NodeInfo>> selected, LoopSettings settings, BooleanSupplier leading, LoopListener listener,
      java.time.Clock clock, OutsidePorts outside) {
    this.cluster = cluster;
    this.playbooks = playbooks;
    this.selected = selected;
    this.settings = settings;
    this.leading = leading;
    this.listener = listener;
    this.workloads = workloads;
    this.writer = new EpisodeWriter(cluster, leading, clock);
    this.drain = new DrainStep(workloads, settings.retryDelay());
    this.diagnose = new DiagnoseStep(workloads, settings.jobNamespace());
    this.slots = new DrainSlots(settings.interval().multipliedBy(3));
    this.replaceStep = new ReplaceStep(cluster, outside, settings.retryDelay());
    this.outbound = new EpisodeOutbound(outside, writer, (node, e, reason, detail) -> decide(node, e, reason, detail,
        List.of(), null));
  }

  /** Starts the timer, two worker threads, and the watch on diagnostic Jobs (a Job's change looks at its node). */
  public void start() {
    ticker = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "remediator-loop-timer"));
    workers = Executors.newFixedThreadPool(2, r -> daemon(r, "remediator-loop"));
    long every = settings.interval().toMillis();
    ticker.scheduleWithFixedDelay(this::scanQuietly, every, every, TimeUnit.MILLISECONDS);
    jobWatch = workloads.watchJobs(settings.jobNamespace(), DiagnoseStep.EPISODE_LABEL, this::kick);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Asks for a look at the node soon (a watch event or the webhook changed it). */
  public void kick(String node) {
    if (workers == null || workers.isShutdown()) {
      return;
    }
    if (!inFlight.add(node)) {
      again.add(node);
      return;
    }
    try {
      workers.execute(() -> runAndRelease(node));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      inFlight.remove(node);
    }
  }

  private void runAndRelease(String node) {
    try {
      advance(node);
    } catch (RuntimeException e) {
      LOGGER.warn("advancing the episodes of node {} failed: {}", node, e.toString(), e);
    } finally {
      inFlight.remove(node);
      if (again.remove(node)) {
        kick(node);
      }
    }
  }

  private void scanQuietly() {
    try {
      scan();
    } catch (RuntimeException e) {
      LOGGER.warn("loop scan failed: {}", e.toString(), e);
    }
  }

  /** Looks over every node once: counts episodes per stage and kicks the nodes with work to do. */
  void scan() {
    Map<Stage, Integer> counts = new EnumMap<>(Stage.class);
    PlaybookSet set = playbooks.get();
    boolean lead = leading.getAsBoolean();
    Instant now = writer.now();
    Set<String> seen = new java.util.HashSet<>();
    for (NodeInfo n : cluster.nodes()) {
      seen.add(n.name());
      boolean work = outbound.expiryDue(n, now);
      for (Episode e : n.ledger().episodes().values()) {
        counts.merge(e.progress().stage(), 1, Integer::sum);
        work |= hasWork(e, set) || set.named(e.playbook()).map(pb -> outbound.due(e, pb, now)).orElse(false);
      }
      if (lead && work) {
        kick(n.name());
      }
    }
    for (String gone : replaceStep.tracked().keySet()) {
      if (lead && !seen.contains(gone)) {
        kick(gone);
      }
    }
    listener.stages(counts);
  }

  /** Whether the episode has something to do now or soon (not waiting for its alert, and not for a human). */
  static boolean hasWork(Episode e, PlaybookSet set) {
    Progress p = e.progress();
    if (p.stage().isFailed()) {
      return false;
    }
    Optional<Playbook> pb = set.named(e.playbook());
    if (pb.isEmpty()) {
      return true;
    }
    return p.task().isPresent() || p.releasing() || p.resolved() || p.next() < pb.get().actions().size();
  }

  /** Advances every episode of the node, now, on this thread (callers hold the node's in-flight mark). */
  void advance(String node) {
    Optional<NodeInfo> n = cluster.node(node);
    if (!leading.getAsBoolean()) {
      return;
    }
    if (n.isEmpty()) {
      replaced(node);
      return;
    }
    PlaybookSet set = playbooks.get();
    // What the steps already passed owe (the webhook's quarantine, say) goes out before the stage changes this look makes.
    keepOutboundQuietly(node, set);
    for (Episode e : cluster.node(node).map(c -> c.ledger().episodes().values()).orElse(java.util.List.of())) {
      try {
        advance(node, e, set);
      } catch (ClusterException ex) {
        LOGGER.warn("episode {} on node {}: {} (retried on the next look)", e.fingerprint(), node, ex.getMessage());
      }
    }
    keepOutboundQuietly(node, set);
  }

  private void keepOutboundQuietly(String node, PlaybookSet set) {
    try {
      keepOutbound(node, set);
    } catch (ClusterException ex) {
      LOGGER.warn("silences and notifications of node {}: {} (retried on the next look)", node, ex.getMessage());
    }
  }

  /**
   * Creates or renews the silences and sends the notifications the node's episodes are due, on the node read fresh
   * (the cache may not have our own last write yet); expires the silences of its ended episodes.
   */
  private void keepOutbound(String node, PlaybookSet set) throws ClusterException {
    Optional<NodeInfo> cached = cluster.node(node);
    Instant now = writer.now();
    boolean due = cached.isPresent() && (outbound.expiryDue(cached.get(), now) || cached.get().ledger().episodes().values()
        .stream().anyMatch(e -> set.named(e.playbook()).map(pb -> outbound.due(e, pb, now)).orElse(false)));
    if (!due) {
      return;
    }
    Optional<NodeInfo> fresh = cluster.freshNode(node);
    if (fresh.isEmpty() || !leading.getAsBoolean()) {
      return;
    }
    for (Episode e : fresh.get().ledger().episodes().values()) {
      Optional<Playbook> pb = set.named(e.playbook());
      if (pb.isPresent() && outbound.due(e, pb.get(), now)) {
        outbound.keep(node, e, pb.get());
      }
    }
    if (!fresh.get().ledger().expiring().isEmpty()) {
      outbound.expireEnded(fresh.get());
    }
  }

  /** A node being replaced is gone from the cache: when the API agrees, the episode is over. */
  private void replaced(String node) {
    ReplaceStep.Replacing r = replaceStep.tracked().get(node);
    if (r == null) {
      return;
    }
    try {
      if (cluster.freshNode(node).isPresent()) {
        return;
      }
    } catch (ClusterException ex) {
      LOGGER.warn("node {} being replaced: {} (asked again on the next look)", node, ex.getMessage());
      return;
    }
    replaceStep.forget(node);
    List<String> silences = new java.util.ArrayList<>(r.ledger().expiring());
    r.ledger().episodes().values().forEach(e -> silences.addAll(e.silenceIds()));
    outbound.expireNow(node, silences);
    Episode e = r.episode();
    Episode over = e.with(e.progress().inStage(Stage.REPLACED, writer.now()).noted("the Node object is gone"));
    decide(node, over, Reason.REPLACED, "the Node object is gone: instance " + r.instance() + " was replaced; its last"
        + " ledger: " + LedgerSummary.of(r.ledger()), List.of(), Stage.REPLACED);
  }

  private void advance(String node, Episode start, PlaybookSet set) throws ClusterException {
    Episode e = start;
    for (int moves = 0; moves < MAX_MOVES && e != null && leading.getAsBoolean(); moves++) {
      Progress p = e.progress();
      if (p.stage().isFailed()) {
        return;
      }
      Optional<Playbook> pb = set.named(e.playbook());
      if (pb.isEmpty()) {
        noticeOnce(node, e, Reason.PLAYBOOK_MISSING, "playbook " + e.playbook() + " is not loaded; the episode waits for it"
            + " or for a human's release");
        return;
      }
      Playbook playbook = pb.get();
      List<ActionSpec> list = Episodes.currentList(e, playbook);
      Instant now = writer.now();
      if (p.task().isPresent()) {
        e = look(node, e, playbook, list, p.task().get(), set, now);
      } else if (p.next() >= list.size()) {
        e = endOfList(node, e, playbook, now);
      } else if (!list.get(p.next()).isLongStep() || list.get(p.next()).dryRun()) {
        e = runImmediate(node, e, playbook, list, now);
      } else {
        e = startLongStep(node, e, playbook, list.get(p.next()), now);
      }
    }
  }

  /** The list is done: a firing episode waits for its alert (or starts its release); a release ends the episode. */
  private Episode endOfList(String node, Episode e, Playbook playbook, Instant now) throws ClusterException {
    Progress p = e.progress();
    if (!p.releasing()) {
      if (!p.resolved()) {
        return null;
      }
      return replace(node, e, e.with(p.releasingFromStart()));
    }
    Optional<EpisodeWriter.Written> w = runSteps(node, e, List.of(), Optional.empty(), "");
    if (w.isPresent()) {
      slots.release(node);
      decide(node, e, Reason.RELEASED, "every release step of " + playbook.name() + " ran; the episode is over",
          List.of(), Stage.RELEASED);
    }
    return null;
  }

  /** Runs the immediate steps from the cursor up to the next long step, in one write. */
  private Episode runImmediate(String node, Episode e, Playbook playbook, List<ActionSpec> list, Instant now)
      throws ClusterException {
    Progress p = e.progress();
    int stop = p.next();
    while (stop < list.size() && (!list.get(stop).isLongStep() || list.get(stop).dryRun())) {
      stop++;
    }
    Episode next = e.with(p.at(stop));
    Optional<EpisodeWriter.Written> w = runSteps(node, e, list.subList(p.next(), stop), Optional.of(next), "");
    if (w.isEmpty()) {
      return null;
    }
    writer.recordEvents(w.get().events());
    decide(node, next, Reason.STEPS_APPLIED, "steps " + (p.next() + 1) + " to " + stop + " of "
        + (p.releasing() ? "on_resolved" : "actions") + " of " + playbook.name() + " ran", w.get().records(), null);
    return w.get().episode().orElse(null);
  }

  private Optional<EpisodeWriter.Written> runSteps(String node, Episode e, List<ActionSpec> specs, Optional<Episode> after,
      String skipped) throws ClusterException {
    Phase phase = e.progress().releasing() ? Phase.RESOLVED : Phase.FIRING;
    try {
      return writer.runSteps(node, e, specs, phase, after, skipped);
    } catch (RenderException ex) {
      Episode stuck = e.with(e.progress().inStage(Stage.NEEDS_HUMAN, writer.now()).noted(ex.getMessage()));
      if (writer.replace(node, e, stuck).isPresent()) {
        decide(node, stuck, Reason.TEMPLATE_INVALID, ex.getMessage(), List.of(), Stage.NEEDS_HUMAN);
      }
      return Optional.empty();
    }
  }

  private Episode startLongStep(String node, Episode e, Playbook playbook, ActionSpec spec, Instant now)
      throws ClusterException {
    Progress p = e.progress();
    if (spec instanceof DrainSpec) {
      int limit = settings.maxDraining().of(selected.get().size());
      Optional<String> full = slots.take(node, limit, now, cluster);
      if (full.isPresent()) {
        String note = "waiting for a drain slot: " + full.get();
        noticeOnce(node, e, Reason.MAX_DRAINING, note);
        return p.note().equals(note) ? null : replace(node, e, e.with(p.inStage(Stage.QUARANTINED, now).noted(note)));
      }
      Task task = new Task("drain", p.next(), now, 1, "", Optional.empty());
      Episode next = e.with(p.inStage(Stage.DRAINING, now).running(task).noted("drain started"));
      Episode written = replace(node, e, next);
      if (written == null) {
        slots.release(node);
        return null;
      }
      decide(node, next, Reason.DRAIN_STARTED, "drain started (" + ((DrainSpec) spec).mode().code() + ", timeout "
          + io.gpuremediator.value.Durations.format(((DrainSpec) spec).timeout()) + ")", List.of(), Stage.DRAINING);
      return written;
    }
    if (spec instanceof ReplaceSpec) {
      return startReplace(node, e, now);
    }
    Task task = new Task("diagnose", p.next(), now, 1, "", Optional.empty());
    Episode next = e.with(p.inStage(Stage.DIAGNOSING, now).running(task).noted("creating the diagnostic job"));
    return replace(node, e, next);
  }

  /** Admits a replacement (the providerID names an instance, the budget allows it), then marks it on the next look. */
  private Episode startReplace(String node, Episode e, Instant now) throws ClusterException {
    Progress p = e.progress();
    ReplaceStep.Admission admission = replaceStep.admit(node);
    if (admission instanceof ReplaceStep.Admission.Impossible i) {
      return needsHuman(node, e, i.reason(), i.why(), now);
    }
    if (admission instanceof ReplaceStep.Admission.Refused r) {
      String note = "waiting to replace: " + r.refusal().detail();
      noticeOnce(node, e, r.refusal().reason(), note);
      return p.note().equals(note) ? null : replace(node, e, e.with(p.noted(note)));
    }
    String instance = ((ReplaceStep.Admission.Admitted) admission).instance().instanceId();
    Task task = new Task("replace", p.next(), now, 1, "", Optional.empty());
    return replace(node, e, e.with(p.inStage(Stage.REPLACING, now).running(task).noted("marking instance " + instance
        + " unhealthy")));
  }

  /** One look at a replacement: mark the instance (once), then wait for the Node object to go, or time out. */
  private Episode lookReplace(String node, Episode e, ReplaceSpec spec, Task task, Instant now) throws ClusterException {
    Progress p = e.progress();
    if (task.handle().isEmpty()) {
      ReplaceStep.Mark mark = replaceStep.mark(node, now);
      if (mark.result() instanceof StepResult.Running r) {
        replace(node, e, e.with(p.running(task.retryAt(r.retryAt().orElse(now))).noted(r.note())));
        return null;
      }
      if (mark.result() instanceof StepResult.Failed f) {
        listener.stepFinished("replace", "failed", Duration.between(task.started(), now).toMillis() / 1000.0);
        return needsHuman(node, e, Reason.REPLACE_FAILED, f.note(), now);
      }
      String note = ((StepResult.Succeeded) mark.result()).note();
      Episode next = e.with(p.running(new Task("replace", task.step(), task.started(), task.attempt(), mark.instance(),
          Optional.empty())).noted(note + "; waiting for the Node object to go"));
      Episode written = replace(node, e, next);
      if (written != null) {
        replaceStep.track(node, written, ledgerOf(node));
        decide(node, next, Reason.REPLACE_STARTED, note + "; the episode ends when the Node object is gone (timeout "
            + io.gpuremediator.value.Durations.format(spec.timeout()) + ")", List.of(), Stage.REPLACING);
      }
      return null;
    }
    replaceStep.track(node, e, ledgerOf(node));
    if (now.isAfter(task.started().plus(spec.timeout()))) {
      listener.stepFinished("replace", "failed", Duration.between(task.started(), now).toMillis() / 1000.0);
      replaceStep.forget(node);
      return needsHuman(node, e, Reason.REPLACE_TIMEOUT, "instance " + task.handle() + " was marked Unhealthy, but the"
          + " Node object is still here after " + io.gpuremediator.value.Durations.format(spec.timeout()), now);
    }
    return null;
  }

  private io.gpuremediator.state.NodeLedger ledgerOf(String node) {
    return cluster.node(node).map(NodeInfo::ledger).orElse(io.gpuremediator.state.NodeLedger.EMPTY);
  }

  /** Stops the episode for a human ({@code needs_human}), deciding why; nothing when fenced out. */
  private Episode needsHuman(String node, Episode e, Reason reason, String why, Instant now) throws ClusterException {
    Episode next = e.with(e.progress().inStage(Stage.NEEDS_HUMAN, now).noted(why));
    if (replace(node, e, next) != null) {
      decide(node, next, reason, why, List.of(), Stage.NEEDS_HUMAN);
    }
    return null;
  }

  /** One look at the long step under way. */
  private Episode look(String node, Episode e, Playbook playbook, List<ActionSpec> list, Task task, PlaybookSet set,
      Instant now) throws ClusterException {
    if (task.retryAt().isPresent() && now.isBefore(task.retryAt().get())) {
      return null;
    }
    if (!writer.stillCurrent(node, e)) {
      return null; // another instance, the webhook or a human moved the episode since the cache showed it
    }
    // A reloaded playbook may have fewer steps now: the task's step is then no longer there to run.
    ActionSpec spec = task.step() < list.size() ? list.get(task.step()) : null;
    if (spec instanceof ReplaceSpec r) {
      return lookReplace(node, e, r, task, now);
    }
    StepResult result;
    if (spec instanceof DrainSpec d) {
      result = drain.look(node, d, task, now, blocked -> budgetEvent(node, e, task, blocked));
    } else if (spec instanceof DiagnoseSpec d) {
      if (task.handle().isEmpty()) {
        return createJob(node, e, playbook, d, task);
      }
      result = diagnose.look(d, task, now);
    } else {
      result = new StepResult.Failed("step " + (task.step() + 1) + " of " + playbook.name()
          + " is no longer a drain or diagnose step (the playbook changed)");
    }
    Progress p = e.progress();
    if (result instanceof StepResult.Running r) {
      Task next = r.retryAt().map(task::retryAt).orElse(new Task(task.kind(), task.step(), task.started(), task.attempt(),
          task.handle(), Optional.empty()));
      if (next.equals(task) && p.note().equals(r.note())) {
        return null;
      }
      replace(node, e, e.with(p.running(next).noted(r.note())));
      return null;
    }
    double seconds = Duration.between(task.started(), now).toMillis() / 1000.0;
    if (result instanceof StepResult.Succeeded s) {
      listener.stepFinished(task.kind(), "succeeded", seconds);
      boolean drained = spec instanceof DrainSpec;
      Stage stage = drained ? Stage.DRAINED : p.stage();
      Episode next = e.with(p.at(task.step() + 1).inStage(stage, now).noted(s.note()));
      Episode written = replace(node, e, next);
      if (written != null) {
        if (drained) {
          slots.release(node);
        }
        decide(node, next, drained ? Reason.DRAINED : Reason.DIAGNOSTICS_PASSED, s.note(), List.of(), stage);
      }
      return written;
    }
    String why = ((StepResult.Failed) result).note();
    listener.stepFinished(task.kind(), "failed", seconds);
    if (spec instanceof DiagnoseSpec d && d.onFail().isPresent() && set.named(d.onFail().get()).isPresent()) {
      Progress escalated = new Progress(Stage.ESCALATED, now, false, false, 0, Optional.empty(), why);
      Episode next = e.escalatedTo(d.onFail().get(), escalated);
      Episode written = replace(node, e, next);
      if (written != null) {
        decide(node, next, Reason.ESCALATED, why + "; escalated to " + d.onFail().get(), List.of(), Stage.ESCALATED);
      }
      return written;
    }
    Stage failed = spec instanceof DrainSpec ? Stage.DRAIN_FAILED : Stage.DIAGNOSTICS_FAILED;
    // The failed task stays in the ledger (a failed stage is never looked at): a retry numbers its attempt from it.
    Episode next = e.with(p.inStage(failed, now).noted(why));
    if (replace(node, e, next) != null) {
      slots.release(node);
      decide(node, next, failed == Stage.DRAIN_FAILED ? Reason.DRAIN_FAILED : Reason.DIAGNOSTICS_FAILED, why, List.of(),
          failed);
    }
    return null;
  }

  /** Creates the Job (idempotent: its name follows from the episode, step and start), then records its name. */
  private Episode createJob(String node, Episode e, Playbook playbook, DiagnoseSpec spec, Task task) throws ClusterException {
    Task named = task.withHandle(DiagnoseStep.jobName(node, e, task.step(), task.started(), task.attempt()));
    diagnose.start(node, e, playbook, spec, named);
    Episode next = e.with(e.progress().running(named).noted("diagnostic job " + settings.jobNamespace() + "/" + named.handle()
        + " created"));
    Episode written = replace(node, e, next);
    if (written != null) {
      decide(node, next, Reason.DIAGNOSE_STARTED, "diagnostic job " + settings.jobNamespace() + "/" + named.handle()
          + " created on " + node + " (" + String.join(" ", spec.command()) + ")", List.of(), Stage.DIAGNOSING);
    }
    return written;
  }

  private Episode replace(String node, Episode expected, Episode next) throws ClusterException {
    return writer.replace(node, expected, next).flatMap(EpisodeWriter.Written::episode).orElse(null);
  }

  private void budgetEvent(String node, Episode e, Task task, String message) {
    String key = e.fingerprint() + "@" + e.startsAt() + "/" + task.started() + "/" + message;
    if (noticed.put(key, Boolean.TRUE) == null) {
      writer.recordEvent(new NodeEvent(node, "Warning", "DrainBlockedByPDB", capped(message), writer.now()));
    }
  }

  /** A refusal or a wait, decided once per episode and reason (a look every few seconds must not repeat it). */
  private void noticeOnce(String node, Episode e, Reason reason, String detail) {
    if (noticed.put(e.fingerprint() + "@" + e.startsAt() + "/" + reason.code(), Boolean.TRUE) == null) {
      decide(node, e, reason, detail, List.of(), null);
    }
  }

  /** Records a decision; a stage change also becomes an Event on the node. */
  Decision decide(String node, Episode e, Reason reason, String detail, List<ActionRecord> records, Stage stage) {
    Decision d = new Decision(writer.now(), e.fingerprint(), e.startsAt(), e.alertname(),
        e.progress().resolved() ? "resolved" : "firing", node, e.playbook(), reason, detail, records);
    listener.decided(d);
    if (stage != null) {
      outbound.stageChanged(node, e, playbooks.get().named(e.playbook()), stage, reason, detail);
      String type = reason.outcome() == io.gpuremediator.decision.Outcome.FAILED ? "Warning" : "Normal";
      writer.recordEvent(new NodeEvent(node, type, eventReason(reason), capped(stage.code() + ": " + detail), writer.now()));
    }
    return d;
  }

  /** Whether this instance may write. */
  boolean isLeading() {
    return leading.getAsBoolean();
  }

  private static String eventReason(Reason reason) {
    StringBuilder b = new StringBuilder();
    for (String part : reason.code().split("_")) {
      b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return b.toString();
  }

  private static String capped(String message) {
    return message.length() > 1024 ? message.substring(0, 1021) + "..." : message;
  }

  /** The episodes' writer, for the human controls. */
  EpisodeWriter writer() {
    return writer;
  }

  /** Runs {@code work} holding the node's in-flight mark, waiting up to {@code wait} for a look under way to end. */
  <T> Optional<T> exclusively(String node, Duration wait, java.util.function.Supplier<T> work) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (!inFlight.add(node)) {
      if (System.nanoTime() > deadline) {
        return Optional.empty();
      }
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
    try {
      return Optional.of(work.get());
    } finally {
      inFlight.remove(node);
      if (again.remove(node)) {
        kick(node);
      }
    }
  }

  /** Releases the node's drain slot (a human released it). */
  void releaseSlot(String node) {
    slots.release(node);
  }

  @Override
  public void close() {
    if (jobWatch != null) {
      try {
        jobWatch.close();
      } catch (Exception e) {
        LOGGER.warn("job watch did not stop cleanly: {}", e.toString());
      }
    }
    if (ticker != null) {
      ticker.shutdownNow();
    }
    if (workers != null) {
      workers.shutdownNow();
    }
  }
}
