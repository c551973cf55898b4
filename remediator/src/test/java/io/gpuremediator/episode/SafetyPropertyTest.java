package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster.Edited;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.safety.DomainBudget;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.FiringAlerts;
import io.gpuremediator.testing.Fleets;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.value.CountOrPercent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of firing, re-sent, duplicated, resolved and storm alerts over up to 50 nodes in NVLink cliques
 * (and some in none), with nodes going NotReady or cordoned by people, quarantined nodes taken back by people, and a
 * clock that jumps. After every step:
 * our quarantines never take unavailable nodes above max_unavailable (invariant 2), nor a clique's above its
 * safety.domains budget (invariant 8), quarantine starts in any window never exceed rate_limit, no episode is
 * remediated twice, no episode a node was taken back from touches it again, and (with an incident threshold, in half
 * the sequences) no episode starts in a clique holding an incident, which opens once and holds until a reset. A failure names its seed;
 * replay one with {@code -Dsafety.seed=N}.
 */
class SafetyPropertyTest {
  private static final PlaybookSet SHIPPED = PlaybookLoader.load(List.of(Path.of("../deploy/playbooks"))).set();
  private static final int SEQUENCES = 1000;
  private static final String CLIQUE = "nvidia.com/gpu.clique";

  @Test
  void limitsHoldAfterEveryStepOfRandomSequences() {
    String one = System.getProperty("safety.seed");
    long first = one == null ? 0 : Long.parseLong(one);
    long last = one == null ? SEQUENCES : first + 1;
    int decisions = 0;
    int incidentRefusals = 0;
    for (long seed = first; seed < last; seed++) {
      Sequence sequence = new Sequence(seed);
      decisions += sequence.run();
      incidentRefusals += (int) sequence.decided.stream().filter(d -> d.reason() == Reason.DOMAIN_INCIDENT).count();
    }
    assertThat(decisions).as("decisions made").isGreaterThan(SEQUENCES * 10);
    if (one == null) {
      assertThat(incidentRefusals).as("episodes refused for an incident").isGreaterThan(SEQUENCES);
    }
  }

  private static final class Sequence {
    private final long seed;
    private final Random random;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-22T10:00:00Z"));
    private final InMemoryCluster cluster;
    private final SafetyLimits limits;
    private final FleetGate gate;
    private final RemediationEngine engine;
    private final List<Decision> decided = new ArrayList<>();
    private final FiringAlerts alerts;
    private final Map<String, Integer> remediated = new HashMap<>();
    private final List<Instant> starts = new ArrayList<>();
    private final int nodes;
    private Map<String, Integer> cliqueBefore = Map.of();
    private final HumanTakeovers takeovers = new HumanTakeovers();

    Sequence(long seed) {
      this.seed = seed;
      this.random = new Random(seed);
      this.nodes = 5 + random.nextInt(46);
      this.alerts = new FiringAlerts(random, clock, nodes);
      this.cluster = Fleets.nodes(nodes);
      int clique = 2 + random.nextInt(17);
      for (int i = 0; i < nodes; i++) {
        if (random.nextInt(5) > 0) {
          label("gpu-node-" + i, "clique-" + (i / clique));
        }
      }
      String budget = new String[] {"10%", "20%", "2", "30%", "1"}[random.nextInt(5)];
      SafetyLimits fleet = Fleets.limits(budget, (1 + random.nextInt(6)) + "/1h", 3 + random.nextInt(8),
          (10 + random.nextInt(50)) + "m");
      Optional<DomainBudget.IncidentRule> incident = random.nextBoolean() ? Optional.empty()
          : Optional.of(new DomainBudget.IncidentRule(1 + random.nextInt(4), Duration.ofMinutes(5 + random.nextInt(26))));
      this.limits = new SafetyLimits(fleet.maxUnavailable(), fleet.rate(), fleet.breakerNodes(), fleet.breakerWindow(),
          fleet.autoResetAfter(), fleet.cooldown(), fleet.replaceRate(), List.of(new DomainBudget(CLIQUE,
              CountOrPercent.parse(new String[] {"1", "50%", "2", "20%"}[random.nextInt(4)]).value(), incident)));
      this.gate = Fleets.gate(cluster, limits, Fleets.store(), clock);
      this.engine = Fleets.engine(cluster, SHIPPED, gate, false, decided::add, clock);
    }

    int run() {
      int steps = 30 + random.nextInt(31);
      for (int step = 0; step < steps; step++) {
        int roll = random.nextInt(100);
        Set<String> availableBefore = available();
        int unavailableBefore = nodes - availableBefore.size();
        cliqueBefore = unavailableByClique();
        Map<String, Instant> incidentsBefore = openIncidents();
        int before = decided.size();
        String what;
        if (roll < 35) {
          what = "fire";
          send(alerts.fire());
        } else if (roll < 50 && !alerts.isEmpty()) {
          what = "re-send";
          send(alerts.any());
        } else if (roll < 55 && !alerts.isEmpty()) {
          what = "HA duplicate";
          Alert a = alerts.any();
          send(a, a);
        } else if (roll < 75 && !alerts.isEmpty()) {
          what = "resolve";
          send(alerts.resolve(alerts.any()));
        } else if (roll < 85) {
          what = "storm";
          int size = 2 + random.nextInt(14);
          send(IntStream.range(0, size).mapToObj(i -> alerts.fire()).toArray(Alert[]::new));
        } else if (roll < 95) {
          what = "time";
          clock.advance(Duration.ofMinutes(1 + random.nextInt(30)));
        } else if (roll < 97) {
          what = "external";
          external();
        } else if (roll < 99) {
          what = "human override";
          takeovers.takeBack(cluster, random);
        } else {
          what = "reset";
          try {
            gate.resetBreaker("property test");
            for (String clique : incidentsBefore.keySet()) {
              if (random.nextBoolean()) {
                gate.resetIncident(CLIQUE, clique, "property test");
              }
            }
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        }
        if (!what.equals("external") && !what.equals("human override")) {
          check(step, what, availableBefore, unavailableBefore, decided.subList(before, decided.size()));
          checkIncidents(step, what, incidentsBefore, decided.subList(before, decided.size()));
        }
        takeovers.check(cluster, "seed " + seed + " (replay: -Dsafety.seed=" + seed + "), step " + step + " (" + what + ")");
      }
      return decided.size();
    }

    private void label(String node, String clique) {
      try {
        cluster.modifyNode(node, n -> {
          Map<String, String> labels = new HashMap<>(n.labels());
          labels.put(CLIQUE, clique);
          return new Edited<>(new NodeInfo(n.name(), labels, n.annotations(), n.taints(), n.unschedulable(), n.conditions(),
              n.internalIps(), n.bootId(), n.resourceVersion(), n.ledger(), n.ledgerFault()), null);
        });
      } catch (ClusterException e) {
        throw new AssertionError(e);
      }
    }

    /** Unavailable nodes per clique. */
    private Map<String, Integer> unavailableByClique() {
      Map<String, Integer> out = new HashMap<>();
      cluster.nodes().forEach(n -> {
        String c = n.labels().get(CLIQUE);
        if (c != null) {
          out.merge(c, FleetGate.isUnavailable(n) ? 1 : 0, Integer::sum);
        }
      });
      return out;
    }

    private Map<String, Integer> cliqueSizes() {
      Map<String, Integer> out = new HashMap<>();
      cluster.nodes().forEach(n -> Optional.ofNullable(n.labels().get(CLIQUE)).ifPresent(c -> out.merge(c, 1, Integer::sum)));
      return out;
    }

    private void check(int step, String what, Set<String> availableBefore, int unavailableBefore, List<Decision> made) {
      String where = "seed " + seed + " (replay: -Dsafety.seed=" + seed + "), step " + step + " (" + what + "), limits " + limits;
      Map<String, Integer> sizes = cliqueSizes();
      unavailableByClique().forEach((clique, out) -> {
        int allowed = limits.domains().get(0).maxUnavailable().of(sizes.get(clique));
        assertThat(out).as(where + ": unavailable nodes of " + clique + " (" + sizes.get(clique) + " nodes) after our"
            + " quarantines").isLessThanOrEqualTo(Math.max(allowed, cliqueBefore.getOrDefault(clique, 0)));
      });
      int budget = limits.maxUnavailable().of(nodes);
      int unavailableAfter = nodes - available().size();
      assertThat(unavailableAfter).as(where + ": unavailable nodes after our quarantines")
          .isLessThanOrEqualTo(Math.max(budget, unavailableBefore));
      Set<String> startedNow = new HashSet<>();
      for (Decision d : made) {
        if (d.reason() == Reason.ACTIONS_APPLIED) {
          String episode = d.fingerprint() + "@" + d.startsAt();
          assertThat(remediated.merge(episode, 1, Integer::sum)).as(where + ": remediations of episode " + episode).isEqualTo(1);
          // A node taken out of service in this step is one start, however many of its alerts acted.
          if (availableBefore.contains(d.node()) && !available().contains(d.node()) && startedNow.add(d.node())) {
            starts.add(clock.instant());
          }
        }
      }
      Instant now = clock.instant();
      long inWindow = starts.stream().filter(t -> t.isAfter(now.minus(limits.rate().window()))).count();
      assertThat(inWindow).as(where + ": quarantine starts in the last " + limits.rate().window())
          .isLessThanOrEqualTo(limits.rate().count());
    }

    /** The cliques holding an open incident, each with when it opened. */
    private Map<String, Instant> openIncidents() {
      Map<String, Instant> out = new HashMap<>();
      gate.snapshot().incidents().forEach(i -> out.put(i.value(), i.openedAt()));
      return out;
    }

    /**
     * No episode starts in a clique that held an incident when the step began; every domain_incident refusal is in a
     * clique holding one; an incident that stays open is the one that opened (one opening, one page), and only a
     * reset ends one.
     */
    private void checkIncidents(int step, String what, Map<String, Instant> before, List<Decision> made) {
      String where = "seed " + seed + " (replay: -Dsafety.seed=" + seed + "), step " + step + " (" + what + "), limits " + limits;
      Map<String, Instant> after = openIncidents();
      for (Decision d : made) {
        String clique = cluster.node(d.node()).map(n -> n.labels().get(CLIQUE)).orElse(null);
        if (d.reason() == Reason.ACTIONS_APPLIED && clique != null) {
          assertThat(before).as(where + ": " + d.node() + " started an episode in " + clique).doesNotContainKey(clique);
        }
        if (d.reason() == Reason.DOMAIN_INCIDENT) {
          assertThat(after).as(where + ": " + d.node() + " refused for an incident in " + clique).containsKey(clique);
        }
      }
      before.forEach((clique, opened) -> {
        if (!what.equals("reset")) {
          assertThat(after).as(where + ": the incident of " + clique + " holds until a reset").containsEntry(clique, opened);
        }
      });
    }

    private Set<String> available() {
      Set<String> out = new HashSet<>();
      cluster.nodes().forEach(n -> {
        if (!FleetGate.isUnavailable(n)) {
          out.add(n.name());
        }
      });
      return out;
    }

    private void send(Alert... alerts) {
      engine.handle(Alerts.message(alerts));
    }

    /** A person cordons a node, or a node goes NotReady, or comes back. */
    private void external() {
      String name = "gpu-node-" + random.nextInt(nodes);
      // A person does not cordon again a node a human took back: the check is about what we put back.
      boolean cordon = random.nextBoolean() && !takeovers.tookBack(name);
      try {
        cluster.modifyNode(name, n -> new Edited<>(new NodeInfo(n.name(), n.labels(), n.annotations(), n.taints(),
            cordon ? !n.unschedulable() : n.unschedulable(),
            cordon ? n.conditions() : List.of(new NodeCondition("Ready", n.isReady() ? "False" : "True", "", "", null, null)),
            n.internalIps(), n.bootId(), n.resourceVersion(), n.ledger(), n.ledgerFault()), null));
      } catch (ClusterException e) {
        throw new AssertionError(e);
      }
    }
  }
}
