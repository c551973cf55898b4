package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.device.FenceRule;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.state.ClaimKey;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.FiringAlerts;
import io.gpuremediator.testing.Fleets;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.workload.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Random sequences over the shipped playbooks and the closed loop: alerts firing, re-sent and resolving,
 * looks by the leader and by a deposed leader that still believes it leads, restarts (a new loop with
 * nothing in memory), budgets letting go, Jobs completing, failing or deleted, clocks jumping, and
 * humans releasing, retrying and taking nodes back (an uncordon, our taints removed). After every step:
 * invariant 6, a node leaves our quarantine (our taint or cordon) only by its episode's release after every earlier step
 * and its diagnostics passed (in on_resolved, or in actions after a repair), or by a human; invariant 7, no pod removed past its budget (the fake Eviction API refuses
 * while a budget allows nothing, so the only way past it is a delete, allowed only at an evict_then_delete
 * timeout), one Job per diagnose or repair attempt (a reboot asked at most once per attempt), never more nodes draining than max_draining, and a long step under way
 * only at the cursor; and an episode a human took the node back from never puts back what the human removed, nor acts
 * again once it ended; invariant 9 on the nodes of a DRA stack, where the shipped playbooks fence one GPU: never more
 * GPUs fenced than max_unavailable_gpus, one rule a device, and a rule given back only by its episode or a human. At the end, with every alert resolved,
 * every budget open and every Job passing, no episode is left mid-step. A failure names its seed; replay
 * one with {@code -Dloop.seed=N}.
 */
class ClosedLoopPropertyTest {
  private static final PlaybookSet SHIPPED = PlaybookLoader.load(List.of(Path.of("../deploy/playbooks"))).set();
  private static final int SEQUENCES = 1000;

  @Test
  void invariantsSixSevenAndNineHoldAfterEveryStep() {
    String one = System.getProperty("loop.seed");
    long first = one == null ? 0 : Long.parseLong(one);
    long last = one == null ? SEQUENCES : first + 1;
    Map<String, Integer> seen = new TreeMap<>();
    for (long seed = first; seed < last; seed++) {
      new Sequence(seed).run(seen);
    }
    System.out.println("closed-loop property: " + (last - first) + " sequences; steps by kind " + seen);
    assertThat(seen.getOrDefault("restart", 0)).as("restarts injected").isGreaterThan((int) (last - first) / 2);
    assertThat(seen.getOrDefault("human override", 0)).as("nodes taken back by a human").isGreaterThan((int) (last - first) / 2);
    if (one == null) {
      assertThat(seen).as("released through diagnostics").containsKey("reached:released");
      assertThat(seen).as("escalated after failed diagnostics").containsKey("reached:escalated");
      assertThat(seen).as("GPUs reset and nodes rebooted").containsKeys("reached:repaired", "node rebooted");
      assertThat(seen).as("repairs that failed").containsKey("reached:repair failed");
    }
  }

  private static final class Sequence {
    private final long seed;
    private final Random random;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-22T10:00:00Z"));
    private final InMemoryCluster cluster;
    private final InMemoryWorkloads workloads = new InMemoryWorkloads(clock);
    private final RemediationEngine engine;
    private final List<Decision> decided = new ArrayList<>();
    private final FiringAlerts alerts;
    private final Map<String, Boolean> diagnosticsPassed = new HashMap<>();
    private final int nodes;
    private final int maxDraining;
    private EpisodeLoop leader;
    private EpisodeLoop deposed;
    private int deletionsSeen;
    private final HumanTakeovers takeovers = new HumanTakeovers();
    private final InMemoryDevices devices;
    private final int maxGpus;

    Sequence(long seed) {
      this.seed = seed;
      this.random = new Random(seed);
      this.nodes = 3 + random.nextInt(10);
      this.alerts = new FiringAlerts(random, clock, nodes);
      this.maxDraining = 1 + random.nextInt(3);
      this.cluster = Fleets.nodes(nodes);
      Set<String> dra = new TreeSet<>();
      for (int n = 0; n < nodes; n++) {
        if (random.nextBoolean()) { // a node of the GPU Operator's DRA stack: the shipped playbooks fence its GPUs
          dra.add("gpu-node-" + n);
          Fleets.label(cluster, "gpu-node-" + n, "nvidia.com/gpu.deploy.dra-driver", "true");
        }
      }
      this.devices = new InMemoryDevices(dra);
      this.maxGpus = 1 + random.nextInt(4);
      for (int n = 0; n < nodes; n++) {
        for (int p = random.nextInt(4); p > 0; p--) {
          workloads.pod("gpu-node-" + n, "pod-" + n + "-" + p, random.nextInt(3) == 0);
        }
      }
      FleetGate gate = Fleets.gate(cluster, Fleets.limits("60%", "1000/1h", 1000, "1m"), Fleets.store(), clock);
      this.engine = Fleets.engine(cluster, SHIPPED, gate, false, decided::add, clock);
      this.leader = newLoop();
    }

    private EpisodeLoop newLoop() {
      return new EpisodeLoop(cluster, workloads, devices, () -> SHIPPED, cluster::nodes,
          new LoopSettings(Duration.ofSeconds(1), Duration.ofSeconds(5), new CountOrPercent(maxDraining, false), "gpu-remediator",
              Set.of(), Optional.empty(), List.of(), 2, List.of(), DraScope.DEFAULT), () -> true, decided::add, clock,
          OutboundPorts.NONE, new ClosedLoopHarness.Fencing(DraScope.DEFAULT, new CountOrPercent(maxGpus, false), 1)
              .fleet(ReplaceLimit.NONE, cluster::nodes, devices));
    }

    void run(Map<String, Integer> seen) {
      int steps = 40 + random.nextInt(41);
      for (int step = 0; step < steps; step++) {
        Map<String, Boolean> heldBefore = held();
        Set<String> fencedBefore = new TreeSet<>(devices.rules.keySet());
        int before = decided.size();
        String what = step(random.nextInt(100));
        seen.merge(what, 1, Integer::sum);
        check(step, what, heldBefore, decided.subList(before, decided.size()));
        checkFences(step, what, fencedBefore, decided.subList(before, decided.size()), seen);
      }
      settle(seen);
    }

    private String step(int roll) {
      if (roll < 18) {
        boolean gpu = random.nextInt(3) == 0;
        send(gpu ? alerts.fireOnGpu() : alerts.fire());
        return gpu ? "fire on a GPU" : "fire";
      } else if (roll < 24 && !alerts.isEmpty()) {
        send(alerts.any());
        return "re-send";
      } else if (roll < 36 && !alerts.isEmpty()) {
        send(alerts.resolve(alerts.any()));
        return "resolve";
      } else if (roll < 62) {
        leader.advance(anyNode());
        return "look";
      } else if (roll < 67 && deposed != null) {
        // A deposed leader that has not noticed yet: its writes must be fenced by the ledger.
        deposed.advance(anyNode());
        return "stale look";
      } else if (roll < 72) {
        deposed = leader;
        leader = newLoop();
        return "restart";
      } else if (roll < 80) {
        clock.advance(Duration.ofSeconds(1 + random.nextInt(random.nextBoolean() ? 30 : 2400)));
        return "time";
      } else if (roll < 85) {
        workloads.budgetOf.replaceAll((pod, allowed) -> random.nextBoolean() ? allowed + 1 : allowed);
        return "budget";
      } else if (roll < 94) {
        return job();
      } else if (roll < 96) {
        return override();
      } else if (roll < 98) {
        leader.advance(anyNode());
        HumanControls.Result r = new HumanControls(leader, cluster, () -> SHIPPED).retry(anyNode(), "try again", "property");
        return "retry " + r.status().name().toLowerCase();
      } else {
        return "human release";
      }
    }

    /** A human takes a quarantined node back (uncordons it, removes our taints), or a fenced GPU (deletes our rule). */
    private String override() {
      if (!devices.rules.isEmpty() && random.nextBoolean()) {
        List<String> rules = new ArrayList<>(devices.rules.keySet());
        devices.unfence(rules.get(random.nextInt(rules.size())));
        return "human unfence";
      }
      return takeovers.takeBack(cluster, random) ? "human override" : "nothing to take back";
    }

    /**
     * Invariant 9: never more GPUs fenced than max_unavailable_gpus allows, never two rules on one device, every rule
     * belongs to a live episode of its node that fences, and a rule goes only by its episode's unfence or end, or a human.
     */
    private void checkFences(int step, String what, Set<String> before, List<Decision> made, Map<String, Integer> seen) {
      String where = "seed " + seed + " (replay: -Dloop.seed=" + seed + "), step " + step + " (" + what + ")";
      assertThat(devices.rules.size()).as(where + ": GPUs fenced, max_unavailable_gpus " + maxGpus + ": " + devices.rules
          .keySet()).isLessThanOrEqualTo(maxGpus);
      assertThat(devices.rules.values().stream().map(r -> r.device().toString()).distinct().count())
          .as(where + ": one rule a device").isEqualTo(devices.rules.size());
      for (FenceRule r : devices.rules.values()) {
        assertThat(cluster.node(r.device().pool()).orElseThrow().ledger().episodes().values()).as(where + ": rule "
            + r.name() + " without a live episode that fences; its node's last decisions: " + decided.stream()
            .filter(d -> d.node().equals(r.device().pool())).skip(Math.max(0, decided.stream()
            .filter(d -> d.node().equals(r.device().pool())).count() - 6)).map(d -> d.reason().code() + " " + d.playbook()
            + " " + d.detail()).toList()).anyMatch(e -> SHIPPED.named(e.playbook()).map(
            p -> p.fencesGpu()).orElse(false) || !e.fenced().isEmpty());
      }
      for (String gone : before) {
        if (devices.rules.containsKey(gone) || what.equals("human unfence")) {
          continue;
        }
        String node = gone.split("\\.")[1];
        assertThat(made).as(where + ": rule " + gone + " deleted without an unfence, a release or a human")
            .anyMatch(d -> d.node().equals(node) && (d.reason() == Reason.GPU_UNFENCED || d.reason() == Reason.RELEASED
                || d.reason() == Reason.RELEASED_BY_HUMAN || d.reason() == Reason.HUMAN_OVERRIDE));
      }
      if (!devices.rules.isEmpty()) {
        seen.merge("GPUs fenced", devices.rules.size(), Integer::sum);
      }
    }

    /**
     * The simulated Job controller: a running Job passes, fails, times out, or someone deletes it; or the kubelet of a
     * node under a reboot comes back with a new bootID.
     */
    private String job() {
      List<String> rebooting = rebooting();
      if (!rebooting.isEmpty() && random.nextInt(3) == 0) {
        Fleets.reboot(cluster, rebooting.get(random.nextInt(rebooting.size())));
        return "node rebooted";
      }
      List<String> running = workloads.jobs.entrySet().stream().filter(e -> e.getValue() == JobState.RUNNING)
          .map(Map.Entry::getKey).toList();
      if (running.isEmpty()) {
        return "no job";
      }
      String name = running.get(random.nextInt(running.size()));
      int r = random.nextInt(10);
      if (r < 6) {
        workloads.jobs.put(name, JobState.SUCCEEDED);
        return "job passes";
      } else if (r < 8) {
        workloads.jobs.put(name, r == 6 ? JobState.FAILED : JobState.TIMED_OUT);
        return "job fails";
      }
      workloads.jobs.remove(name);
      return "job deleted";
    }

    private void check(int step, String what, Map<String, Boolean> heldBefore, List<Decision> made) {
      String where = "seed " + seed + " (replay: -Dloop.seed=" + seed + "), step " + step + " (" + what + ")";
      for (Decision d : made) {
        String episode = d.fingerprint() + "@" + d.startsAt();
        if (d.reason() == Reason.DIAGNOSE_STARTED || d.reason() == Reason.STEP_RETRIED) {
          diagnosticsPassed.put(episode, false);
        } else if (d.reason() == Reason.DIAGNOSTICS_PASSED) {
          diagnosticsPassed.put(episode, true);
        }
      }
      if (what.equals("human release")) {
        String node = anyNode();
        new HumanControls(leader, cluster, () -> SHIPPED).release(node, "repaired", "property");
        return;
      }
      for (NodeInfo n : cluster.nodes()) {
        boolean heldNow = heldOut(n);
        if (heldBefore.getOrDefault(n.name(), false) && !heldNow) {
          // Invariant 6: out of our quarantine only by a release of this step, after diagnostics passed where the
          // playbook asks for them.
          List<Decision> releases = made.stream().filter(d -> d.node().equals(n.name()) && (d.reason() == Reason.RELEASED
              || d.reason() == Reason.RESOLVED_ACTIONS_APPLIED || d.reason() == Reason.HUMAN_OVERRIDE)).toList();
          assertThat(releases).as(where + ": node " + n.name() + " left quarantine without a release").isNotEmpty();
          for (Decision r : releases.stream().filter(d -> d.reason() != Reason.HUMAN_OVERRIDE).toList()) {
            Playbook p = SHIPPED.named(r.playbook()).orElseThrow();
            boolean diagnoses = p.onResolved().stream().anyMatch(a -> a.kind().equals("diagnose"))
                || p.actions().stream().anyMatch(a -> a.kind().equals("diagnose"));
            if (r.reason() == Reason.RESOLVED_ACTIONS_APPLIED) {
              assertThat(diagnoses).as(where + ": released by the webhook though " + p.name() + " diagnoses first").isFalse();
              assertThat(r.actions()).as(where + ": a webhook release with steps left")
                  .noneMatch(a -> a.outcome() == StepOutcome.PENDING && !a.type().equals("event"));
            } else if (diagnoses) {
              assertThat(diagnosticsPassed.get(r.fingerprint() + "@" + r.startsAt())).as(where + ": " + n.name()
                  + " released without its diagnostics passing").isTrue();
            }
          }
        }
        for (Episode e : n.ledger().episodes().values()) {
          e.progress().task().ifPresent(t -> assertThat(t.step()).as(where + ": the long step under way on " + n.name()
              + " is the one the cursor is at").isEqualTo(e.progress().next()));
        }
      }
      // Invariant 7: the only pods removed without the Eviction API are those an evict_then_delete drain found left
      // at its timeout (the shipped playbooks' 30m), on a node draining now.
      for (String node : workloads.deletedOn.subList(deletionsSeen, workloads.deletedOn.size())) {
        List<Episode> drains = cluster.node(node).stream().flatMap(x -> x.ledger().episodes().values().stream())
            .filter(e -> e.progress().stage() == Stage.DRAINING && e.progress().task().isPresent()).toList();
        assertThat(drains).as(where + ": a pod deleted on " + node + " without a drain").isNotEmpty();
        assertThat(drains).as(where + ": a pod deleted on " + node + " before a drain's timeout").anySatisfy(e ->
            assertThat(e.progress().task().orElseThrow().started().plus(Duration.ofMinutes(30))).isBeforeOrEqualTo(clock.instant()));
      }
      deletionsSeen = workloads.deletedOn.size();
      takeovers.check(cluster, where + " decisions " + decided.stream().skip(Math.max(0, decided.size() - 15))
          .map(d -> d.node() + " " + d.fingerprint() + " " + d.reason().code() + " " + d.playbook() + " " + d.detail()).toList());
      long draining = cluster.nodes().stream().filter(n -> n.ledger().episodes().values().stream()
          .anyMatch(e -> e.progress().stage() == Stage.DRAINING)).count();
      assertThat(draining).as(where + ": nodes draining (max_draining " + maxDraining + "): " + cluster.nodes().stream()
          .filter(n -> n.ledger().episodes().values().stream().anyMatch(e -> e.progress().stage() == Stage.DRAINING))
          .map(n -> n.name() + "=" + n.ledger().episodes().values()).toList() + "; decisions: " + decided.subList(
              Math.max(0, decided.size() - 12), decided.size()).stream().map(d -> d.node() + " " + d.reason().code() + " "
              + d.detail()).toList()).isLessThanOrEqualTo(maxDraining);
      // Every Job is a diagnose attempt, a repair's (a GPU reset; a reboot, asked at most once per attempt), or the
      // evidence of a playbook's collect step; no reboot while its episode's evidence Job runs within its timeout.
      long started = decided.stream().filter(d -> d.reason() == Reason.DIAGNOSE_STARTED
          || d.reason() == Reason.REPAIR_STARTED || d.reason() == Reason.COLLECT_STARTED).count();
      assertThat(workloads.rebootsBeforeEvidence).as(where + ": reboots before their evidence").isEmpty();
      assertThat((long) workloads.jobsCreated).as(where + ": Jobs created vs diagnose and repair steps started")
          .isEqualTo(started);
    }

    /** Everything resolves, budgets open, Jobs pass: nothing may stay mid-step. */
    private void settle(Map<String, Integer> seen) {
      for (Alert a : alerts.all()) {
        send(alerts.resolve(a));
      }
      workloads.budgetOf.replaceAll((pod, allowed) -> allowed + 1);
      for (int round = 0; round < 30; round++) {
        workloads.jobs.replaceAll((name, state) -> state == JobState.RUNNING ? JobState.SUCCEEDED : state);
        rebooting().forEach(node -> Fleets.reboot(cluster, node));
        clock.advance(Duration.ofSeconds(10));
        for (int n = 0; n < nodes; n++) {
          leader.advance("gpu-node-" + n);
        }
      }
      for (NodeInfo n : cluster.nodes()) {
        for (Episode e : n.ledger().episodes().values()) {
          Stage s = e.progress().stage();
          Playbook p = SHIPPED.named(e.playbook()).orElseThrow();
          assertThat(s == Stage.DRAINING || s == Stage.DIAGNOSING || (e.progress().task().isPresent() && !s.isFailed())
              || (e.progress().resolved() && !s.isFailed() && Episodes.firingDone(e, p) && !p.onResolved().isEmpty()))
              .as("seed " + seed + " (replay: -Dloop.seed=" + seed + "): episode left mid-step at the end: " + e).isFalse();
          seen.merge("reached:" + s.code(), 1, Integer::sum);
        }
      }
      decided.stream().filter(d -> d.reason() == Reason.RELEASED).forEach(d -> seen.merge("reached:released", 1, Integer::sum));
      decided.stream().filter(d -> d.reason() == Reason.REPAIRED).forEach(d -> seen.merge("reached:repaired", 1, Integer::sum));
      decided.stream().filter(d -> d.reason() == Reason.REPAIR_FAILED || d.reason() == Reason.REBOOT_TIMEOUT
          || d.reason() == Reason.ESCALATED && d.detail().contains("GPU reset job"))
          .forEach(d -> seen.merge("reached:repair failed", 1, Integer::sum));
    }

    /** Whether each node is out of service by our hand (our taint or cordon held). */
    private Map<String, Boolean> held() {
      Map<String, Boolean> out = new HashMap<>();
      cluster.nodes().forEach(n -> out.put(n.name(), heldOut(n)));
      return out;
    }

    private static boolean heldOut(NodeInfo n) {
      return ClaimKey.anyTakesNodeOutOfService(n.ledger());
    }

    /** The nodes whose episode waits for a reboot it asked for. */
    private List<String> rebooting() {
      return cluster.nodes().stream().filter(n -> n.ledger().episodes().values().stream().anyMatch(e ->
          e.progress().stage() == Stage.REPAIRING && e.progress().task().filter(t -> t.kind().equals("reboot")
              && t.handle().endsWith(" sent")).isPresent())).map(NodeInfo::name).toList();
    }

    private String anyNode() {
      return "gpu-node-" + random.nextInt(nodes);
    }

    private void send(Alert... alerts) {
      engine.handle(Alerts.message(alerts));
    }
  }
}
