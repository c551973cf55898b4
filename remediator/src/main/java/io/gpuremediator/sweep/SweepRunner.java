package io.gpuremediator.sweep;

import io.gpuremediator.action.DiagnoseAction.DiagnoseSpec;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.episode.DecisionListener;
import io.gpuremediator.episode.WebhookResult;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.workload.JobRun;
import io.gpuremediator.workload.JobState;
import io.gpuremediator.workload.LabelledJob;
import io.gpuremediator.workload.PodInfo;
import io.gpuremediator.workload.Workloads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each look lists the sweep Jobs ({@link SweepJobs#LABEL}) and: deletes one under way whose node now holds GPU work
 * (a pod requesting an accelerator, {@link PodInfo#usesAccelerators}), opened an episode, or left service or the
 * selection ({@code sweep_preempted}, no episode); raises {@link SweepFailure#ALERTNAME} for one whose diagnostic
 * failed, or timed out once a look had seen its pod Ready, to the engine as a webhook would, until the node's ledger
 * holds its episode (a refused one is raised again, as Alertmanager repeats); records {@code sweep_not_run} for one
 * whose pod never ran the diagnostic.
 * Then each sweep starts Jobs on its idle due nodes (selected, matching its {@code select}, Ready and schedulable, no
 * episode, GPUs in capacity, no pod of GPU work, not swept within {@code every}; never swept first) up to
 * {@code max_concurrent}, each only where the fleet gate admits it with every sweep under way counted as a node out of
 * service ({@link FleetGate#checkBeside}): the fleet's and the domains' budgets hold sweeps too. When each node was last
 * swept is read back from the Jobs, so a restart sweeps no node early while its last Job is kept.
 */
public final class SweepRunner {
  private static final Logger LOGGER = LoggerFactory.getLogger(SweepRunner.class);
  /** The most nodes one look reads the pods of to start sweeps: a large fleet is swept over a few looks. */
  static final int POD_READS_A_LOOK = 50;
  /** A refused failure is raised again after this, as Alertmanager's repeat would. */
  static final Duration RAISE_AGAIN = Duration.ofMinutes(5);
  /** A node found holding GPU work is not read again for this long. */
  static final Duration BUSY_RECHECK = Duration.ofMinutes(10);
  private static final String STATUS = "sweep";

  private final List<SweepPolicy> sweeps;
  private final Supplier<PlaybookSet> playbooks;
  private final Supplier<List<NodeInfo>> selected;
  private final Workloads workloads;
  private final String namespace;
  private final FleetGate gate;
  private final Function<WebhookMessage, WebhookResult> engine;
  private final DecisionListener decided;
  private final Clock clock;
  /** When each sweep last started on each node ({@code sweep/node}), merged with what the Jobs say. */
  private final Map<String, Instant> lastSwept = new ConcurrentHashMap<>();
  /** Nodes found holding GPU work, and until when they are not read again. */
  private final Map<String, Instant> busyUntil = new ConcurrentHashMap<>();
  /** Failed Jobs raised, and when last. */
  private final Map<String, Instant> raised = new ConcurrentHashMap<>();
  /** Jobs whose not-run decision is recorded. */
  private final Set<String> notRun = ConcurrentHashMap.newKeySet();
  /** Jobs a look saw with a Ready pod: their container started, so a deadline passed is the diagnostic's. */
  private final Set<String> ran = ConcurrentHashMap.newKeySet();
  /** The last refusal recorded for each sweep: a new one is recorded when it changes. */
  private final Map<String, Reason> lastRefusal = new ConcurrentHashMap<>();
  private volatile List<SweepStatus> status = List.of();

  /** Creates the runner; {@code engine} decides the failures' alerts (the service's own: {@code handleOwn}). */
  public SweepRunner(List<SweepPolicy> sweeps, Supplier<PlaybookSet> playbooks, Supplier<List<NodeInfo>> selected,
      Workloads workloads, String namespace, FleetGate gate, Function<WebhookMessage, WebhookResult> engine,
      DecisionListener decided, Clock clock) {
    this.sweeps = List.copyOf(sweeps);
    this.playbooks = playbooks;
    this.selected = selected;
    this.workloads = workloads;
    this.namespace = namespace;
    this.gate = gate;
    this.engine = engine;
    this.decided = decided;
    this.clock = clock;
  }

  /** One look; a failed list of the Jobs concludes nothing. */
  public void look() {
    List<LabelledJob> jobs;
    try {
      jobs = workloads.jobsLabelled(namespace, SweepJobs.LABEL);
    } catch (ClusterException e) {
      LOGGER.warn("sweeps: the sweep Jobs could not be listed, nothing concluded: {}", e.getMessage());
      return;
    }
    Instant now = clock.instant();
    Map<String, NodeInfo> nodes = selected.get().stream().collect(Collectors.toMap(NodeInfo::name, n -> n, (a, b) -> a));
    List<LabelledJob> running = new ArrayList<>();
    for (LabelledJob j : jobs) {
      lastSwept.merge(SweepJobs.key(j.labels().getOrDefault(SweepJobs.LABEL, ""), j.node()), j.run().created(),
          (a, b) -> a.isAfter(b) ? a : b);
      switch (j.run().state()) {
        case RUNNING -> {
          if (j.ready()) {
            ran.add(j.name());
          }
          if (!preempted(j, nodes.get(j.node()), now)) {
            running.add(j);
          }
        }
        case FAILED, TIMED_OUT -> failed(j, nodes.get(j.node()), now);
        case SUCCEEDED -> { }
      }
    }
    List<Candidate> lent = new ArrayList<>();
    running.forEach(j -> Optional.ofNullable(nodes.get(j.node())).ifPresent(n -> lent.add(SweepJobs.candidate(n, playbookOf(j)))));
    List<SweepStatus> out = new ArrayList<>();
    for (SweepPolicy sweep : sweeps) {
      out.add(start(sweep, nodes, running, lent, now));
    }
    status = List.copyOf(out);
    Set<String> kept = jobs.stream().map(LabelledJob::name).collect(Collectors.toSet());
    raised.keySet().retainAll(kept);
    notRun.retainAll(kept);
    ran.retainAll(kept);
    busyUntil.values().removeIf(t -> !t.isAfter(now));
  }

  /** Each sweep as the last look saw it. */
  public List<SweepStatus> status() {
    return status;
  }

  /** Deletes a sweep under way whose node is no longer idle or in reach; whether it did. */
  private boolean preempted(LabelledJob j, NodeInfo node, Instant now) {
    Optional<String> why;
    try {
      why = node == null ? Optional.of("its node is no longer selected")
          : !node.ledger().episodes().isEmpty() ? Optional.of("an episode opened on the node")
          : FleetGate.isUnavailable(node) ? Optional.of("the node left service (cordoned, NotReady or quarantined)")
          : workloads.podsOn(j.node()).stream().filter(PodInfo::usesAccelerators).findFirst()
              .map(p -> "GPU work was scheduled on the node: pod " + p.ref());
      if (why.isPresent()) {
        workloads.deleteJob(namespace, j.name());
      }
    } catch (ClusterException e) {
      LOGGER.debug("sweeps: {} not looked at: {}", j.name(), e.getMessage());
      return false;
    }
    why.ifPresent(w -> record(j, Reason.SWEEP_PREEMPTED, "sweep Job " + namespace + "/" + j.name() + " deleted, no episode: "
        + w, now));
    return why.isPresent();
  }

  /**
   * A failed diagnostic raises its alert until the ledger holds its episode; a pod that never ran it is only noted: a
   * Job failed for another reason than its pod failure policy, or past its deadline without a look having seen its pod
   * Ready (an image that cannot be pulled, a PriorityClass that does not exist, a kubelet that refused the pod).
   */
  private void failed(LabelledJob j, NodeInfo node, Instant now) {
    JobRun run = j.run();
    Optional<String> notRunBecause = run.state() == JobState.FAILED && !run.reason().equals(JobRun.POD_FAILURE_POLICY)
        ? Optional.of("failed (" + run.reason() + ") without its diagnostic failing")
        : run.state() == JobState.TIMED_OUT && !ran.contains(j.name())
            ? Optional.of("passed its deadline without a look having seen its pod Ready (its container never started, or"
                + " the service restarted while it ran)") : Optional.empty();
    if (notRunBecause.isPresent()) {
      if (notRun.add(j.name())) {
        record(j, Reason.SWEEP_NOT_RUN, "sweep Job " + namespace + "/" + j.name() + " " + notRunBecause.get()
            + ": no episode, the node is swept again when due", now);
      }
      return;
    }
    String fingerprint = SweepFailure.fingerprint(j.node(), j.name());
    Instant last = raised.get(j.name());
    if (node == null || node.ledger().handled(fingerprint, run.created(), true)
        || last != null && last.plus(RAISE_AGAIN).isAfter(now)) {
      return;
    }
    String tail;
    try {
      tail = workloads.logTail(namespace, j.name(), 20);
    } catch (ClusterException e) {
      tail = "(its log could not be read: " + e.getMessage() + ")";
    }
    Alert alert = SweepFailure.of(j, namespace, tail);
    WebhookResult result = engine.apply(new WebhookMessage("sweeps", AlertStatus.FIRING, "", 0, Map.of(), List.of(alert)));
    if (!result.shouldRetry()) {
      raised.put(j.name(), now);
    }
  }

  /** Starts the sweep on its idle due nodes, within max_concurrent and the gate; what it saw. */
  private SweepStatus start(SweepPolicy sweep, Map<String, NodeInfo> nodes, List<LabelledJob> running, List<Candidate> lent,
      Instant now) {
    List<SweepStatus.Running> mine = new ArrayList<>(running.stream()
        .filter(j -> sweep.name().equals(j.labels().get(SweepJobs.LABEL)))
        .map(j -> new SweepStatus.Running(j.node(), j.name(), j.run().created())).toList());
    Optional<DiagnoseSpec> spec = playbooks.get().named(sweep.playbook()).flatMap(SweepPlaybooks::diagnose);
    if (spec.isEmpty()) {
      return new SweepStatus(sweep.name(), sweep.playbook(), sweep.maxConcurrent(), mine, 0, "playbook " + sweep.playbook()
          + " is not loaded or has no diagnose step");
    }
    Set<String> sweeping = running.stream().map(LabelledJob::node).collect(Collectors.toSet());
    List<NodeInfo> due = nodes.values().stream().filter(n -> idle(sweep, n, now) && !sweeping.contains(n.name()))
        .sorted(Comparator.comparing((NodeInfo n) -> lastSwept.getOrDefault(SweepJobs.key(sweep.name(), n.name()), Instant.EPOCH))
            .thenComparing(NodeInfo::name)).toList();
    String blocked = "";
    int reads = 0;
    int started = 0;
    for (NodeInfo n : due) {
      if (mine.size() >= sweep.maxConcurrent() || reads >= POD_READS_A_LOOK) {
        break;
      }
      Optional<Refusal> refused = gate.checkBeside(SweepJobs.candidate(n, sweep.playbook()), lent);
      if (refused.isPresent()) {
        blocked = refused.get().reason().code() + ": " + refused.get().detail();
        refusedOnce(sweep, n, refused.get(), now);
        break;
      }
      lastRefusal.remove(sweep.name());
      reads++;
      Optional<String> job = startOn(sweep, spec.get(), n, now);
      if (job.isPresent()) {
        started++;
        mine.add(new SweepStatus.Running(n.name(), job.get(), now));
        lent.add(SweepJobs.candidate(n, sweep.playbook()));
      }
    }
    return new SweepStatus(sweep.name(), sweep.playbook(), sweep.maxConcurrent(), mine, due.size() - started, blocked);
  }

  /** Creates the Job on the node unless its pods hold GPU work; the Job's name when it did. */
  private Optional<String> startOn(SweepPolicy sweep, DiagnoseSpec spec, NodeInfo n, Instant now) {
    try {
      Optional<PodInfo> work = workloads.podsOn(n.name()).stream().filter(PodInfo::usesAccelerators).findFirst();
      if (work.isPresent()) {
        busyUntil.put(n.name(), now.plus(BUSY_RECHECK));
        return Optional.empty();
      }
      var job = SweepJobs.of(sweep, spec, n, namespace, now);
      workloads.createJob(job);
      lastSwept.put(SweepJobs.key(sweep.name(), n.name()), now);
      decided.decided(new Decision(now, SweepFailure.fingerprint(n.name(), job.name()), now, STATUS, STATUS, n.name(),
          sweep.playbook(), Reason.SWEEP_STARTED, "sweep " + sweep.name() + " started " + namespace + "/" + job.name()
          + " (" + String.join(" ", spec.command()) + ") on idle node " + n.name(), List.of()));
      return Optional.of(job.name());
    } catch (ClusterException e) {
      LOGGER.warn("sweeps: {} not started on {}: {}", sweep.name(), n.name(), e.getMessage());
      return Optional.empty();
    }
  }

  /** Idle and due: selected by the sweep, in service, no episode, GPUs in capacity, not known busy, not swept lately. */
  private boolean idle(SweepPolicy sweep, NodeInfo n, Instant now) {
    Instant last = lastSwept.get(SweepJobs.key(sweep.name(), n.name()));
    Instant busy = busyUntil.get(n.name());
    return sweep.select().map(s -> s.matches(n.labels())).orElse(true) && n.gpuCapacity() > 0
        && !FleetGate.isUnavailable(n) && n.ledger().episodes().isEmpty() && n.ledgerFault().isEmpty()
        && (busy == null || !busy.isAfter(now)) && (last == null || !last.plus(sweep.every()).isAfter(now));
  }

  /** A refusal is recorded (a decision, its metric and an Event on the node) when it differs from the sweep's last. */
  private void refusedOnce(SweepPolicy sweep, NodeInfo n, Refusal refused, Instant now) {
    if (lastRefusal.put(sweep.name(), refused.reason()) != refused.reason()) {
      decided.decided(new Decision(now, SweepJobs.hash(sweep.name() + "/" + refused.reason()).substring(0, 16), now, STATUS,
          STATUS, n.name(), sweep.playbook(), refused.reason(), "sweep " + sweep.name() + " not started on " + n.name()
          + ": " + refused.detail(), List.of()));
    }
  }

  private void record(LabelledJob j, Reason reason, String detail, Instant now) {
    decided.decided(new Decision(now, SweepFailure.fingerprint(j.node(), j.name()), j.run().created(), STATUS, STATUS,
        j.node(), playbookOf(j), reason, detail, List.of()));
  }


  /** The playbook of the Job's sweep (one no longer configured: its name). */
  private String playbookOf(LabelledJob j) {
    String name = j.labels().getOrDefault(SweepJobs.LABEL, "");
    return sweeps.stream().filter(s -> s.name().equals(name)).map(SweepPolicy::playbook).findFirst().orElse(name);
  }
}
