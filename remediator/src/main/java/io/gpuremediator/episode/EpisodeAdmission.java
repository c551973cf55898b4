package io.gpuremediator.episode;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.PreparedAction;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.GpuBudget;
import io.gpuremediator.safety.SafetyGate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A new episode's admission by the fleet's limits, and its first write, as one: no other admission takes its place. A
 * playbook whose first long step fences a GPU takes its place in the GPU limits here too: one the fleet has no GPU to
 * spare for ({@code gpu_budget_exhausted}, {@code gpu_count_unknown}) is refused as a node over a fleet limit is,
 * nothing written.
 */
final class EpisodeAdmission {
  /** How long a copy waits for the admission of its episode under way (as a webhook waits for a node). */
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final Cluster cluster;
  private final SafetyGate gate;
  private final AlertWrite write;
  private final AlertDecisions decisions;
  private final GpuBudget gpus;
  /** The episodes being admitted now, by node, fingerprint and start; their copies wait on the latch. */
  private final Map<String, CountDownLatch> admitting = new ConcurrentHashMap<>();

  EpisodeAdmission(Cluster cluster, SafetyGate gate, AlertWrite write, AlertDecisions decisions, GpuBudget gpus) {
    this.cluster = cluster;
    this.gate = gate;
    this.write = write;
    this.decisions = decisions;
    this.gpus = gpus;
  }

  /**
   * Admits the new episode against the node as the cache has it now and the gate's budgets (a place reserved,
   * so no other admission can take it), writes, and settles the reservation: a start when the node was
   * quarantined, the place given back otherwise. No gate lock is held while the node is written. Copies of one episode
   * (Alertmanager's retries, an HA pair's twins) are admitted one at a time: a copy waits for the admission under way
   * and is then the duplicate it is, never refused by the places the first copy holds (a rate limit full of copies).
   */
  Decision admitAndExecute(Alert alert, Playbook playbook, String nodeName, List<PreparedAction> steps, List<ActionSpec> specs,
      String note, String matched) {
    String key = nodeName + "/" + alert.fingerprint() + "@" + alert.startsAt();
    CountDownLatch mine = new CountDownLatch(1);
    long deadline = System.nanoTime() + WAIT.toNanos();
    for (CountDownLatch other = admitting.putIfAbsent(key, mine); other != null; other = admitting.putIfAbsent(key, mine)) {
      if (!await(other, deadline)) {
        return decisions.decision(alert, nodeName, playbook.name(), Reason.KUBE_UNAVAILABLE, "another copy of this alert"
            + " was still being admitted after " + WAIT.toSeconds() + "s; nothing written (Alertmanager retries)", List.of());
      }
    }
    try {
      return admitOne(alert, playbook, nodeName, steps, specs, note, matched);
    } finally {
      admitting.remove(key, mine);
      mine.countDown();
    }
  }

  /** The GPU place of the first long step when it fences a GPU; one a node cannot take more of is the step's to fail. */
  private Optional<Refusal> gpuRoom(Alert alert, String node, List<ActionSpec> specs) {
    TemplateContext ctx = new TemplateContext(alert.labels(), alert.annotations(), node, alert.alertname(),
        alert.fingerprint());
    return specs.stream().filter(ActionSpec::isLongStep).findFirst()
        .flatMap(s -> ActionRegistry.gpuRoom(s, ctx, gpus, node, decisions.now()))
        .filter(r -> r.reason() != Reason.FENCED_PER_NODE);
  }

  private static boolean await(CountDownLatch other, long deadline) {
    try {
      return other.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private Decision admitOne(Alert alert, Playbook playbook, String nodeName, List<PreparedAction> steps, List<ActionSpec> specs,
      String note, String matched) {
    NodeInfo node = cluster.node(nodeName).orElse(null);
    if (node == null) {
      return decisions.decision(alert, nodeName, playbook.name(), Reason.NODE_NOT_FOUND, "node " + nodeName + " no longer exists", List.of());
    }
    if (isDuplicate(node, alert)) {
      return decisions.duplicate(alert, nodeName, playbook.name());
    }
    Optional<Refusal> noGpu = gpuRoom(alert, nodeName, specs);
    if (noGpu.isPresent()) {
      return decisions.decision(alert, nodeName, playbook.name(), noGpu.get().reason(), note + noGpu.get().detail(), List.of());
    }
    SafetyGate.Candidate candidate = candidate(node, playbook);
    Optional<Refusal> refusal = gate.reserve(candidate);
    if (refusal.isPresent()) {
      return decisions.decision(alert, nodeName, playbook.name(), refusal.get().reason(), note + refusal.get().detail(), List.of());
    }
    boolean started = false;
    try {
      Decision done = write.execute(alert, playbook, nodeName, Phase.FIRING, steps, specs, note, matched);
      started = done.reason() == Reason.ACTIONS_APPLIED;
      return done;
    } finally {
      gate.settle(candidate, started);
    }
  }

  /** A node becomes unavailable only when it is available now and the playbook takes it out of service. */
  static SafetyGate.Candidate candidate(NodeInfo node, Playbook playbook) {
    return new SafetyGate.Candidate(node, playbook.name(), playbook.takesNodeOutOfService() && !FleetGate.isUnavailable(node),
        playbook.rateLimit(), playbook.cooldown());
  }

  /** Whether this exact episode was already handled: firing and active, resolved and waiting, or already released. */
  static boolean isDuplicate(NodeInfo node, Alert alert) {
    return node.ledger().handled(alert.fingerprint(), alert.startsAt(), alert.isFiring());
  }
}
