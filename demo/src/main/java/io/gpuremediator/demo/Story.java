package io.gpuremediator.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuremediator.demo.Milestones.Milestone;
import io.gpuremediator.pipeline.Pipeline;
import io.gpuremediator.simcluster.SimCluster;
import io.gpuremediator.simcluster.SimNode;
import io.gpuremediator.simcluster.StageHandoffs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The scripted story: two GPUs lost silently (started first, because their rule waits {@code for: 2m}), an
 * XID 79 whose node is quarantined and drained (the training job's PodDisruptionBudget holds its worker
 * until the job has checkpointed), rebooted, diagnosed and returned; an XID 48 whose GPU is reset, diagnosed and
 * returned; the driver itself asking for a GPU reset (its recovery action), which is done and the node returned; one
 * GPU of a DRA node fenced; an application XID; a hot spare released the moment a node is quarantined, the job's worker
 * landing on it, the silent losses quarantined and drained, the GPUs
 * back and diagnostics deciding (one node returns to service, the other escalates to a human), a node no reboot
 * mends replaced through Karpenter (its replacement passing the pre-flight gate before it takes work), and a storm
 * the breaker stops. Each chapter waits, with a deadline, for what the pipeline should do, and prints it as
 * it is seen.
 */
public final class Story {
  /** The story uses GPU nodes 3 to 27 (8 has a Karpenter NodeClaim; 26 and 27 are a spare pool's). */
  public static final int GPU_NODES_NEEDED = 29;
  private static final String XID_ALERT = "GpuXidHardwareError";
  private static final String APP_XID_ALERT = "GpuXidApplicationError";
  private static final String RECOVERY_ALERT = "GpuRecoveryActionRequired";
  private static final String LOST_ALERT = "GpuCountDropped";
  private static final String IB_ALERT = "InfinibandLinkDown";
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);
  /** Quarantine, drain, reboot, diagnose, escalate, drain, replace, launch, pre-flight: one after the other. */
  private static final Duration REPLACE_TIMEOUT = Duration.ofSeconds(120);
  /** GpuCountDropped's `for:` in rules/gpu-presence.rules.yml. */
  private static final Duration LOST_FOR = Duration.ofMinutes(2);
  /** However often its pending state restarts, the silent loss is given up this long after the fault. */
  private static final Duration LOST_CAP = Duration.ofMinutes(8);
  /** The series each alert's rule reads, shown when it does not come. */
  private static final Map<String, List<String>> SERIES_READ = Map.of(
      XID_ALERT, List.of("gpu:dcgm_xid_errors:max", "gpu:dcgm_xid_errors:held10m"),
      APP_XID_ALERT, List.of("gpu:dcgm_xid_errors:max", "gpu:dcgm_xid_errors:held10m"),
      RECOVERY_ALERT, List.of("DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION", "node:dcgm_recovery_action:reported"),
      LOST_ALERT, List.of("node:dcgm_gpus:count", "node:gpus_expected:max1d", "up"),
      IB_ALERT, List.of("node_infiniband_state_id", "node_port:infiniband_active_recent:max1h", "node_port:infiniband_active:max7d"));

  /** The reasons of the closed loop's own decisions (stage changes), as opposed to the webhook's. */
  private static final Set<String> LOOP_REASONS = Set.of("steps_applied", "drain_started", "drained",
      "drain_failed", "max_draining", "diagnose_started", "diagnostics_passed", "diagnostics_failed", "escalated", "released",
      "repair_started", "repaired", "repair_failed", "reboot_timeout", "reboot_unsupported", "replace_started", "replaced",
      "collect_started", "collect_waiting", "evidence_stored", "evidence_not_stored",
      "released_by_human", "step_retried", "playbook_missing", "silence_created", "silence_failed");

  private final Pipeline p;
  private final Timeline t;
  private final Observe see;
  private final List<String> gpuNodes;
  private final int trnNodes;
  private final String xid;
  private final String lost;
  private final String lost2;
  private final String app;
  private final String reset;
  private final String driverAsks;
  private final String beyond;
  private final String ib;
  private final String draNode;
  private final String draSpare;
  private final String spareFailing;
  private final String spare;
  private final String swept;
  private final List<String> storm;
  private final FabricChapter fabric;

  public Story(Pipeline p, Timeline t) {
    this.p = p;
    this.t = t;
    this.see = new Observe(p);
    this.gpuNodes = p.nodes().stream().filter(n -> n.kind() == SimNode.Kind.GPU).map(SimNode::name).toList();
    this.trnNodes = p.nodes().size() - gpuNodes.size();
    if (gpuNodes.size() < GPU_NODES_NEEDED) {
      throw new IllegalArgumentException("the story needs " + GPU_NODES_NEEDED + " GPU nodes, not " + gpuNodes.size());
    }
    xid = gpuNodes.get(3);
    lost = gpuNodes.get(7);
    lost2 = gpuNodes.get(9);
    app = gpuNodes.get(11);
    reset = gpuNodes.get(5);
    driverAsks = gpuNodes.get(6);
    beyond = gpuNodes.get(8);
    ib = gpuNodes.get(4);
    storm = gpuNodes.subList(12, 22);
    fabric = new FabricChapter(p, t, see, List.of(gpuNodes.get(10), gpuNodes.get(22), gpuNodes.get(23)), this::report);
    draNode = gpuNodes.get(24);
    draSpare = gpuNodes.get(25);
    spareFailing = gpuNodes.get(26);
    spare = gpuNodes.get(27);
    swept = gpuNodes.get(28);
  }

  /** Plays every chapter; throws {@link Milestones.Missed} naming what the pipeline did not do in time. */
  public StoryResult play() throws Exception {
    try (StageHandoffs handoffs = new StageHandoffs(p.kube(), "gpu-remediator")) {
      StoryResult result = chapters();
      t.plain("  stage handoffs (from the event that ends a step to the remediator's next write about the node, seen on"
          + " watches of the simulated cluster):");
      StageHandoffs.report(handoffs.samples(), 1).forEach(l -> t.plain("  " + l));
      return result;
    }
  }

  private StoryResult chapters() throws Exception {
    t.begin();
    healthyFleet();

    t.chapter("1. A GPU falls off the bus without any XID, on two nodes (" + lost + ", " + lost2 + ")");
    long lostAt = System.nanoTime();
    p.simulator().inject(lost, 3, "gpu_lost", null);
    p.simulator().inject(lost2, 2, "gpu_lost", null);
    t.at("fault", lost + " GPU 3 and " + lost2 + " GPU 2 stop reporting: their series vanish, no XID is raised"
        + " (simulator: gpu_lost)");
    p.kube().nodes().withName(lost2).edit(n -> {
      n.getMetadata().getLabels().put(SimCluster.FAILS_DIAGNOSTICS, "2");
      return n;
    });
    t.note("in this simulated cluster " + lost2 + "'s GPU 2 will still fail dcgmi diag after it comes back");
    JsonNode[] pending = new JsonNode[1];
    Milestones.await(lostAt, STEP_TIMEOUT, List.of(new Milestone("alert", () -> see.prometheusAlert(LOST_ALERT, lost, "pending").map(a -> {
      pending[0] = a;
      return LOST_ALERT + " pending: " + labels(a.path("labels")) + "; " + (int) Double.parseDouble(a.path("value").asText())
          + " GPUs report, fewer than the node's capacity, while the exporter is up";
    }), () -> see.prometheusWhy(LOST_ALERT, lost, SERIES_READ.get(LOST_ALERT)))), this::report, () -> { });
    fabric.inject();
    p.simulator().inject(ib, null, "ib_down", "mlx5_2");
    t.at("fault", ib + " InfiniBand port mlx5_2/1 goes down (Polling: no link partner); its mlx5_4/1 was never cabled"
        + " (simulator: ib_down)");
    t.note("it fires only after `for: 2m`, so a GPU that flickers during a driver reload is not a lost GPU;");
    t.note("the story goes on meanwhile");

    t.chapter("2. XID 79 (GPU has fallen off the bus) on " + xid);
    long xidAt = System.nanoTime();
    p.simulator().inject(xid, 5, "xid", "79");
    t.at("fault", xid + " GPU 5: DCGM_FI_DEV_XID_ERRORS = 79");
    Map<String, Duration> x = Milestones.await(xidAt, STEP_TIMEOUT, quarantineMilestones(XID_ALERT, xid), this::report, () -> { });
    String xidDecision = decision(xid, XID_ALERT).map(Story::outcome).orElseThrow();
    t.note("fault to quarantine " + Timeline.human(x.get("node")) + "; then the drain, in the background");
    Map<String, Duration> courtesy = Milestones.await(xidAt, STEP_TIMEOUT, List.of(
        new Milestone("silence", () -> see.silences(xid, "active").stream().findFirst().map(s -> "Alertmanager silence "
            + s.path("id").asText().substring(0, 8) + "... active: " + Observe.matchers(s) + ", until "
            + s.path("endsAt").asText().replaceAll("\\.\\d+Z$", "Z") + " (renewed while the episode lasts)"),
            () -> "no active silence for " + xid + " in Alertmanager yet"),
        new Milestone("oncall", () -> p.notifications().stream().filter(m -> m.startsWith(xid + " quarantined")).findFirst()
            .map(m -> "gpu-oncall was told: \"" + m + "\""), () -> "gpu-oncall received " + p.notifications())),
        this::report, () -> { });
    t.note("while " + xid + " is out, Alertmanager mutes its other alerts (thermal, telemetry, ...): a known problem pages");
    t.note("no one; never its remediation alerts (remediate!=\"true\"); and gpu-oncall hears of each stage change");
    boolean xidSilenced = courtesy.containsKey("silence");
    String worker = see.pods(xid).stream().filter(pod -> pod.startsWith(SimCluster.JOB_NAMESPACE + "/")).findFirst().orElseThrow();
    Milestones.await(xidAt, STEP_TIMEOUT, List.of(new Milestone("evidence", () -> decisionFor(xid, "collect_started")
        .map(d -> "evidence before the reboot: " + d.path("detail").asText()), () -> see.nodeStateWhy(xid)),
        new Milestone("drain", () -> see.stage(xid, "draining")
        .filter(n -> n.path("progress").asText().contains("PDB")).map(n -> "stage draining: " + n.path("progress").asText()),
        () -> see.nodeStateWhy(xid))), this::report, () -> { });
    t.note("the eviction API refuses " + worker + ": its PodDisruptionBudget allows no disruption until the job has"
        + " checkpointed; the remediator retries, says so, and evicts nothing past it");
    p.kube().policy().v1().podDisruptionBudget().inNamespace(SimCluster.JOB_NAMESPACE).withName(SimCluster.JOB_BUDGET)
        .editStatus(pdb -> {
          pdb.getStatus().setDisruptionsAllowed(1);
          return pdb;
        });
    long letGo = System.nanoTime();
    t.at("cluster", "the job wrote its checkpoint: " + SimCluster.JOB_BUDGET + " now allows one disruption");
    Milestones.await(letGo, STEP_TIMEOUT, List.of(new Milestone("drained", () -> decisionFor(xid, "drained")
        .filter(n -> !see.pods(xid).contains(worker)).map(n -> "drained: " + worker + " evicted; " + xid
            + " stays out of service"), () -> see.nodeStateWhy(xid))), this::report, () -> { });
    t.note("XID 79's catalog action is a reboot (recommended_action=reboot): playbook gpu-xid-reboot reboots the node,");
    t.note("once the evidence Job (the node's own nvidia-bug-report.sh, where its driver put it) finished");
    t.note("and its report left the node (evidence.store: here the ReadWriteMany claim " + SimCluster.EVIDENCE_CLAIM + ")");
    Repair rebooted = awaitRepair(xid, xidAt, repairMilestones(xid, "reboot"),
        xid + "'s exporter came back after the reboot reporting no XID");
    String stored = decisionFor(xid, "evidence_stored").map(d -> d.path("detail").asText()).orElse("");
    Path report = p.evidenceClaim().resolve(stored.replaceAll(".*pvc/" + SimCluster.EVIDENCE_CLAIM + ":", ""));
    t.at("evidence", stored.isEmpty() ? "NOT STORED: " + decisionFor(xid, "evidence_not_stored").map(d -> d.path("detail")
        .asText()).orElse("no evidence decision") : stored + (Files.isRegularFile(report) ? " (" + Files.size(report)
        + " bytes of nvidia-bug-report.log.gz on the claim)" : " (BUT NO FILE AT " + report + ")"));
    Optional<Instant> collected = decisionFor(xid, "collect_started").map(d -> Instant.parse(d.path("time").asText()));
    Optional<Instant> rebootAsked = decisionFor(xid, "repair_started").map(d -> Instant.parse(d.path("time").asText()));
    boolean evidenceFirst = collected.isPresent() && rebootAsked.isPresent() && !collected.get().isAfter(rebootAsked.get());

    t.chapter("3. XID 48 (double-bit ECC error) on " + reset + ": the catalog says reset the GPU");
    long resetAt = System.nanoTime();
    p.simulator().inject(reset, 2, "xid", "48");
    t.at("fault", reset + " GPU 2: DCGM_FI_DEV_XID_ERRORS = 48");
    List<Milestone> resetting = new ArrayList<>(quarantineMilestones(XID_ALERT, reset));
    resetting.addAll(repairMilestones(reset, "GPU reset"));
    Repair r = awaitRepair(reset, resetAt, resetting, reset + " GPU 2 reports no XID after its reset");
    t.note("no wait for the alert to resolve: a passing dcgmi diag after the repair is what returns a node; its");
    t.note("3rd XID episode within 7 days would go to gpu-repeat-offender (replace) instead of another repair");

    t.chapter("3b. The driver itself asks for a GPU reset on " + driverAsks + " (its recovery action, driver R565 and later)");
    long askedAt = System.nanoTime();
    p.simulator().inject(driverAsks, 4, "recovery_action", "1");
    t.at("fault", driverAsks + " GPU 4: DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION = 1 (GPU_RESET; the kernel log says Xid 154,"
        + " \"GPU recovery action changed from 0x0 (None) to 0x1\")");
    List<Milestone> asked = new ArrayList<>(quarantineMilestones(RECOVERY_ALERT, driverAsks));
    asked.addAll(repairMilestones(driverAsks, "GPU reset"));
    Repair driverReset = awaitRepair(driverAsks, "recovery_action", askedAt, asked,
        driverAsks + " GPU 4's recovery action reads 0 after its reset");
    String driverPlaybook = decision(driverAsks, RECOVERY_ALERT).map(d -> d.path("playbook").asText()).orElse("");
    t.note("where a GPU reports the driver's recovery action, that decides: no XID alert asks for more than it does;");
    t.note("where it does not (older drivers or exporters), NVIDIA's Xid catalog decides, as in chapters 2 and 3");

    DraChapter.Seen dra = new DraChapter(p, t, see, draNode, draSpare, this::report).play();

    t.chapter("4. XID 13 on " + app + ": the application's fault, not the node's");
    long appAt = System.nanoTime();
    p.simulator().inject(app, 0, "xid", "13");
    t.at("fault", app + " GPU 0: DCGM_FI_DEV_XID_ERRORS = 13 (Graphics Engine Exception)");
    Map<String, String> routed = new LinkedHashMap<>();
    Milestones.await(appAt, STEP_TIMEOUT, List.of(
        new Milestone("alert", () -> see.prometheusAlert(APP_XID_ALERT, app, "firing").map(a -> APP_XID_ALERT + " firing: xid="
            + a.path("labels").path("xid").asText() + " severity=" + a.path("labels").path("severity").asText() + ", no remediate label"),
            () -> see.prometheusWhy(APP_XID_ALERT, app, SERIES_READ.get(APP_XID_ALERT))),
        new Milestone("route", () -> see.alertmanagerAlert(APP_XID_ALERT, app).map(a -> {
          routed.put("receivers", String.join(",", Observe.receivers(a)));
          return "Alertmanager routes it to " + Observe.receivers(a) + " (people), not to the remediator, whose route needs remediate=\"true\"";
        }))), this::report, () -> { });
    t.note("why: XIDs 13, 31, 43, 45 and 68 are raised by the workload (NVIDIA's device plugin ignores them too);");
    t.note("quarantining the node would punish the next job for this one's bug");

    SpareChapter.Seen spared = new SpareChapter(p, t, see, spareFailing, spare, this::report)
        .play(quarantineMilestones(XID_ALERT, spareFailing), repairMilestones(spareFailing, "reboot"));
    SweepChapter.Seen sweep = new SweepChapter(p, t, see, swept, this::report).play();

    t.chapter("5. The silent GPU loss on " + lost + ", once `for: 2m` has passed");
    PendingWait waitLost = new PendingWait(see, t, LOST_ALERT, lost, Instant.parse(pending[0].path("activeAt").asText()), LOST_FOR,
        STEP_TIMEOUT, SERIES_READ.get(LOST_ALERT), lostAt, LOST_CAP);
    Map<String, Duration> l = Milestones.await(lostAt, waitLost::deadlineNanos, quarantineMilestones(LOST_ALERT, lost), this::report,
        waitLost::tick);
    t.note("GPU loss to quarantine " + Timeline.human(l.get("node")) + " (the rule's for: 2m included)");
    Milestones.await(System.nanoTime(), STEP_TIMEOUT, quarantineMilestones(LOST_ALERT, lost2), this::report, () -> { });
    Milestones.await(System.nanoTime(), STEP_TIMEOUT, List.of(
        new Milestone("drained", () -> see.stage(lost, "drained").isPresent() && see.stage(lost2, "drained").isPresent()
            ? Optional.of(lost + " and " + lost2 + " stage drained: no pods to move; they wait for their alerts to resolve")
            : Optional.empty(),
            () -> see.nodeStateWhy(lost) + "; " + see.nodeStateWhy(lost2))), this::report, () -> { });

    t.chapter("6. The GPUs come back; diagnostics decide whether the nodes return");
    long backAt = System.nanoTime();
    p.simulator().clear(lost, "gpu_lost");
    p.simulator().clear(lost2, "gpu_lost");
    t.at("fault", lost + " GPU 3 and " + lost2 + " GPU 2 report again (simulator: faults cleared)");
    Map<String, Duration> back = Milestones.await(backAt, STEP_TIMEOUT, List.of(
        new Milestone("resolve", () -> decision(lost, LOST_ALERT, "resolved").map(d -> LOST_ALERT + " resolved on " + lost
            + " and " + lost2 + ": the release waits for diagnostics")),
        new Milestone("diag", () -> decisionFor(lost2, "diagnose_started").isPresent()
            && decisionFor(lost, "diagnose_started").isPresent()
            ? Optional.of("dcgmi diag -r 2 runs as a Job pinned to each node, tolerating the quarantine") : Optional.empty(),
            () -> see.nodeStateWhy(lost)),
        new Milestone("back", () -> decisionFor(lost, "released").filter(d -> see.inService(lost))
            .map(d -> lost + " passed its diagnostics and is back in service: untainted, uncordoned"), () -> see.nodeStateWhy(lost)),
        new Milestone("human", () -> decisionFor(lost2, "escalated").filter(d -> see.quarantine(lost2).isPresent())
            .filter(d -> p.notifications().stream().anyMatch(m -> m.startsWith(lost2 + " needs a human")))
            .map(d -> lost2 + " failed its diagnostics (" + tail(d.path("detail").asText()) + "); escalated to "
                + "gpu-needs-human: still out of service, labelled, and gpu-oncall told"), () -> see.nodeStateWhy(lost2))),
        this::report, () -> { });
    boolean lostReleased = back.containsKey("back") && see.inService(lost);
    Map<String, Duration> unmuted = Milestones.await(backAt, STEP_TIMEOUT, List.of(new Milestone("unmute", () ->
        see.silences(lost, "active").isEmpty() && !see.silences(lost, "expired").isEmpty()
            ? Optional.of("its Alertmanager silence expired with the episode: " + lost + "'s alerts page people again")
            : Optional.empty(), () -> "silences of " + lost + ": active " + see.silences(lost, "active").size() + ", expired "
            + see.silences(lost, "expired").size())), this::report, () -> { });
    boolean lostUnsilenced = unmuted.containsKey("unmute");
    boolean lost2Escalated = back.containsKey("human") && see.quarantine(lost2).isPresent();

    boolean ibBack = infinibandChapter();

    Replacement replaced = replaceChapter();

    FabricChapter.Seen fabricSeen = fabric.play();

    t.chapter("9. A storm: XID 79 on " + storm.size() + " nodes at once (" + storm.get(0) + " to " + storm.get(storm.size() - 1) + ")");
    long stormAt = System.nanoTime();
    for (String n : storm) {
      p.simulator().inject(n, 0, "xid", "79");
    }
    t.at("fault", "XID 79 on GPU 0 of " + storm.size() + " nodes within " + (System.nanoTime() - stormAt) / 1_000_000
        + " ms: a bad driver rollout or a rack event, not " + storm.size() + " broken GPUs");
    Map<String, String> stormDecisions = new TreeMap<>();
    Milestones.await(stormAt, STEP_TIMEOUT, List.of(
        new Milestone("safety", this::breakerOpen),
        new Milestone("decide", () -> stormDecided(stormDecisions)),
        new Milestone("event", this::stormEvents)), this::report, () -> { });
    List<String> stormTouched = new ArrayList<>();
    for (String n : storm) {
      if (see.touched(n)) {
        stormTouched.add(n);
      }
    }
    t.at("node", (storm.size() - stormTouched.size()) + " of " + storm.size() + " storm nodes untouched (no taint, no cordon);"
        + " the breaker stays open until someone looks: POST /api/v1/breaker/reset");

    t.chapter("10. What happened");
    int appDecisions = see.decisions(app).size();
    boolean appTouched = see.touched(app);
    t.plain(String.format("  %-18s %-26s %s", xid, "XID 79", "quarantined " + Timeline.human(x.get("node"))
        + " after the fault, drained past the job's PodDisruptionBudget once it allowed, rebooted ("
        + Timeline.human(rebooted.took()) + "), diagnosed: back in service " + Timeline.human(rebooted.back())
        + " after the fault"));
    t.plain(String.format("  %-18s %-26s %s", reset, "XID 48", "quarantined " + Timeline.human(r.seen().get("node"))
        + ", drained, GPU 2 reset (" + Timeline.human(r.took()) + "), diagnosed: back in service "
        + Timeline.human(r.back()) + " after the fault"));
    t.plain(String.format("  %-18s %-26s %s", driverAsks, "driver: recovery action 1", "quarantined "
        + Timeline.human(driverReset.seen().get("node")) + " by " + driverPlaybook + ", drained, GPU 4 reset ("
        + Timeline.human(driverReset.took()) + "), diagnosed: back in service " + Timeline.human(driverReset.back())
        + " after the driver asked"));
    t.plain(String.format("  %-18s %-26s %s", draNode, "XID 48 on a DRA node", "GPU 3"
        + " fenced " + Timeline.human(dra.milestones().get("fence")) + " after the fault, its pod moved to " + draSpare
        + ", reset and diagnosed alone, unfenced " + Timeline.human(dra.milestones().get("unfenced")) + " after the fault; node "
        + (dra.cordoned() ? "CORDONED" : "never cordoned") + ", " + dra.othersRunning() + " other pods kept running, its exporter "
        + (dra.exporterKept() ? "exporting throughout" : "EVICTED")));
    t.plain(String.format("  %-18s %-26s %s", spareFailing, "XID 79, a spare pool's", "quarantined "
        + Timeline.human(spared.milestones().get("node")) + " after the fault; " + (spared.released().isEmpty() ? "NO SPARE RELEASED"
        : spared.released() + " released from the pool " + Timeline.human(spared.milestones().get("released"))
        + (spared.beforeDrained() ? " (before the drain ended)" : " (AFTER THE DRAIN)")) + ", the job's worker on "
        + (spared.landedOn().isEmpty() ? "NO NODE" : spared.landedOn() + " " + Timeline.human(spared.milestones().get("landed")))
        + " after; rebooted, diagnosed, " + (spared.refilled() ? "held as the pool's spare" : "NOT HELD AS A SPARE")));
    t.plain(String.format("  %-18s %-26s %s", swept, "idle, PCIe replays (sweep)", "found by the sweep "
        + Timeline.human(sweep.milestones().get("failed")) + " after it was selected, quarantined, rebooted as dcgmi diag"
        + " said: " + (sweep.back() ? "back in service" : "NOT BACK") + (sweep.noJobLanded() ? ", no job ever on it"
        : ", A JOB LANDED ON IT")));
    t.plain(String.format("  %-18s %-26s %s", lost, "GPU lost, no XID", "quarantined " + Timeline.human(l.get("node"))
        + " after the loss (for: 2m), drained, diagnosed: " + (lostReleased ? "passed, back in service" : "NOT RELEASED")));
    t.plain(String.format("  %-18s %-26s %s", lost2, "GPU lost, still faulty", "quarantined, drained, diagnosed: "
        + (lost2Escalated ? "failed, escalated to a human" : "NOT ESCALATED")));
    t.plain(String.format("  %-18s %-26s %s", ib, "InfiniBand port down", ibBack
        ? "quarantined once the port that was ACTIVE stayed down 2m (the never-cabled one ignored), the on-call told which"
            + " port, drained; port back: diagnosed, back in service" : "NOT BACK IN SERVICE"));
    t.plain(String.format("  %-18s %-26s %s", beyond, "XID 79, beyond repair", "rebooted, diagnosed: failed; "
        + (replaced.newcomer() == null ? "NOT REPLACED" : "replaced through Karpenter by " + replaced.newcomer() + ", which "
        + (replaced.earned() ? "passed its pre-flight and takes work" : "DID NOT PASS its pre-flight")) + " ("
        + Timeline.human(replaced.took()) + " from the fault)"));
    t.plain(String.format("  %-18s %-26s %s", FabricChapter.RACK, "fabric, 3 nodes at once", (fabricSeen.incident()
        ? "one incident, " : "NO INCIDENT, ") + fabricSeen.pages() + " page, " + (fabricSeen.repaired() ? "A REPAIR ASKED" : "no reset"
        + " or reboot") + ": " + countBy(fabricSeen.decisions())));
    t.plain(String.format("  %-18s %-26s %s", app, "XID 13 (application)", (appTouched ? "TOUCHED" : "untouched") + ": routed to "
        + routed.get("receivers") + ", " + appDecisions + " remediator decisions"));
    t.plain(String.format("  %-18s %-26s %s", storm.get(0) + ".." + storm.get(storm.size() - 1).replaceAll(".*-", ""), "storm, XID 79",
        (stormTouched.isEmpty() ? "untouched" : "TOUCHED: " + stormTouched) + ": " + countBy(stormDecisions)));
    t.plain(String.format("  %-18s %-26s %s", "gpu-oncall", "notifications", p.notifications().size() + " received (quarantines"
        + " and stage changes); silences: " + (xidSilenced ? "held while quarantined" : "NONE HELD") + ", "
        + (lostUnsilenced ? "expired at release" : "NOT EXPIRED")));
    return new StoryResult(x.get("node"), xidDecision, !see.pods(xid).contains(worker), see.inService(xid) ? rebooted.back() : null,
        see.inService(reset) ? r.back() : null, see.inService(driverAsks) ? driverReset.back() : null, driverPlaybook,
        List.of(routed.get("receivers").split(",")),
        appDecisions, appTouched, l.get("node"), lostReleased, lost2Escalated, see.safety().path("breaker").path("state").asText(),
        stormDecisions, stormTouched, xidSilenced, lostUnsilenced, p.notifications(), replaced.through(), replaced.newcomer(),
        replaced.earned(), ibBack, fabricSeen.decisions(), fabricSeen.incident(), fabricSeen.pages(), fabricSeen.repaired(),
        evidenceFirst, stored.isEmpty() || !Files.isRegularFile(report) ? "" : stored, dra.cordoned(), dra.othersRunning(),
        dra.exporterKept(), spared.released(), spared.beforeDrained(), spared.landedOn(), spared.refilled(), sweep.noJobLanded()
        && sweep.milestones().containsKey("failed"), sweep.back());
  }

  /**
   * The InfiniBand port that went down in chapter 1 (a port that was ACTIVE; the node's never-cabled port is not a
   * fault): quarantined once its rule's `for: 2m` passed, the on-call told which port; then the port comes back, the
   * alert resolves, and dcgmi diag returns the node.
   */
  private boolean infinibandChapter() throws Exception {
    t.chapter("7. The InfiniBand port on " + ib + ", down since chapter 1");
    List<Milestone> quarantined = quarantineMilestones(IB_ALERT, ib);
    Milestones.await(System.nanoTime(), STEP_TIMEOUT, List.of(quarantined.get(0),
        // Alertmanager has re-sent it since (a duplicate): the decision that acted is the one shown.
        new Milestone("decide", () -> decisionFor(ib, "actions_applied").map(d -> "remediator: " + outcome(d) + ", playbook "
            + d.path("playbook").asText() + ": " + actions(d)), () -> see.decisionsWhy(ib)),
        quarantined.get(2),
        new Milestone("oncall", () -> p.notifications().stream().filter(m -> m.startsWith(ib + " quarantined by"
            + " infiniband-link-down")).findFirst().map(m -> "gpu-oncall was told: \"" + m + "\""),
            () -> "gpu-oncall received " + p.notifications())), this::report, () -> { });
    t.note("only mlx5_2 fires: mlx5_4 has been DOWN since boot, which is not a fault");
    long back = System.nanoTime();
    p.simulator().clear(ib, "ib_down");
    t.at("fault", ib + " InfiniBand port mlx5_2/1 ACTIVE again (simulator: fault cleared)");
    Map<String, Duration> seen = Milestones.await(back, STEP_TIMEOUT, List.of(
        new Milestone("resolve", () -> decision(ib, IB_ALERT, "resolved").map(d -> IB_ALERT + " resolved: the release"
            + " waits for dcgmi diag")),
        new Milestone("back", () -> decisionFor(ib, "released").filter(d -> see.inService(ib))
            .map(d -> ib + " passed its diagnostics and is back in service"), () -> see.nodeStateWhy(ib))),
        this::report, () -> { });
    return seen.containsKey("back") && see.inService(ib);
  }

  /** What the replacement chapter saw: what was asked of Karpenter, the node it launched, whether that node earned its place. */
  private record Replacement(String through, String newcomer, boolean earned, Duration took) {}

  /**
   * A node whose GPU no reboot mends: its reboot's diagnostics fail, the ladder's last rung (gpu-repeat-offender) drains it
   * and has Karpenter replace it, and the node Karpenter launches runs the pre-flight Job before it takes any work.
   */
  private Replacement replaceChapter() throws Exception {
    t.chapter("8. XID 79 on " + beyond + ", whose GPU no reboot mends: replaced through Karpenter, and its replacement"
        + " proves itself");
    p.kube().nodes().withName(beyond).edit(n -> {
      n.getMetadata().getLabels().put(SimCluster.FAILS_DIAGNOSTICS, "1");
      return n;
    });
    t.note("in this simulated cluster " + beyond + "'s GPU 1 fails dcgmi diag whatever is done to it; the cluster's GPU nodes");
    t.note("are Karpenter's (a NodeClaim each; two are Cluster API Machines), so deploy/karpenter's playbooks are in force");
    long at = System.nanoTime();
    p.simulator().inject(beyond, 1, "xid", "79");
    t.at("fault", beyond + " GPU 1: DCGM_FI_DEV_XID_ERRORS = 79");
    List<Milestone> steps = new ArrayList<>(quarantineMilestones(XID_ALERT, beyond));
    steps.add(new Milestone("repair", () -> decisionFor(beyond, "repaired").map(d -> "rebooted: " + d.path("detail").asText()),
        () -> see.nodeStateWhy(beyond)));
    steps.add(new Milestone("escalate", () -> decisionFor(beyond, "escalated")
        .filter(d -> d.path("detail").asText().endsWith("gpu-repeat-offender"))
        .map(d -> "dcgmi diag still fails (" + tail(d.path("detail").asText()) + "): escalated to gpu-repeat-offender"),
        () -> see.nodeStateWhy(beyond)));
    steps.add(new Milestone("replace", () -> decisionFor(beyond, "replace_started").map(d -> d.path("detail").asText()),
        () -> see.nodeStateWhy(beyond)));
    steps.add(new Milestone("replaced", () -> decisionFor(beyond, "replaced").map(d -> d.path("detail").asText()
        .replaceAll("; its last ledger.*", "")), () -> see.nodeStateWhy(beyond)));
    steps.add(new Milestone("newcomer", () -> newcomer().map(n -> "Karpenter launched " + n + "; it registers with "
        + SimCluster.STARTUP_TAINT + " (the NodePool's startupTaints): no work lands on it yet")));
    steps.add(new Milestone("preflight", () -> newcomerDecision("preflight_started").map(d -> d.path("detail").asText()),
        this::newcomerWhy));
    steps.add(new Milestone("earned", () -> newcomerDecision("preflight_passed").flatMap(d -> newcomer())
        .filter(n -> see.inService(n) && !tainted(n)).map(n -> n + " passed its pre-flight: the taint is gone, it takes work"),
        this::newcomerWhy));
    Map<String, Duration> seen = Milestones.await(at, REPLACE_TIMEOUT, steps, this::report, () -> { });
    p.simulator().clear(beyond, "xid");
    t.at("fault", "the simulator stops serving " + beyond + "'s XID: that machine is gone (simulator: fault cleared)");
    String through = decisionFor(beyond, "replace_started").map(d -> d.path("detail").asText()).orElse("");
    String n = newcomer().orElse(null);
    return new Replacement(through, n, n != null && !tainted(n) && newcomerDecision("preflight_passed").isPresent(),
        seen.get("earned"));
  }

  /** The newest decision with this reason about the node Karpenter launched. */
  private Optional<JsonNode> newcomerDecision(String reason) throws IOException, InterruptedException {
    Optional<String> n = newcomer();
    return n.isPresent() ? decisionFor(n.get(), reason) : Optional.empty();
  }

  private String newcomerWhy() throws IOException, InterruptedException {
    Optional<String> n = newcomer();
    return n.isPresent() ? see.nodeStateWhy(n.get()) : "Karpenter has launched no node yet";
  }

  /** The node Karpenter launched in the story, if it did. */
  private Optional<String> newcomer() {
    return p.kube().nodes().list().getItems().stream().map(n -> n.getMetadata().getName())
        .filter(n -> n.startsWith(SimCluster.LAUNCHED)).findFirst();
  }

  private boolean tainted(String node) {
    var n = p.kube().nodes().withName(node).get();
    return n != null && n.getSpec().getTaints() != null && n.getSpec().getTaints().stream()
        .anyMatch(t -> t.getKey().equals(SimCluster.STARTUP_TAINT));
  }

  private void healthyFleet() throws Exception {
    t.chapter("0. A healthy fleet: " + gpuNodes.size() + " GPU nodes (8 GPUs each) and " + trnNodes + " Trainium nodes");
    int targets = 2 * gpuNodes.size() + 2 * trnNodes + 1;
    Milestones.await(System.nanoTime(), STEP_TIMEOUT, List.of(
        new Milestone("targets", () -> see.scalar("count(up == 1)").filter(v -> v >= targets).map(v -> "Prometheus scrapes "
            + v.intValue() + " targets, all up: dcgm-exporter and node-exporter per GPU node, NPD and neuron-monitor per"
            + " Trainium node, kube-state-metrics"),
            see::targetsWhy),
        new Milestone("gpus", () -> see.scalar("count(node:dcgm_gpus:count == 8)").filter(v -> v == gpuNodes.size())
            .map(v -> "the rules see " + v.intValue() + " GPU nodes with 8 GPUs each, through the production node relabel")),
        new Milestone("alertmanager", () -> p.http().get(p.prometheusUrl() + "/api/v1/alertmanagers", null).path("data")
            .path("activeAlertmanagers").isEmpty() ? Optional.empty()
            : Optional.of("Prometheus found Alertmanager; Alertmanager sends remediate=\"true\" to the remediator"))),
        (m, d, at) -> t.at("ready", d), () -> { });
  }

  private List<Milestone> quarantineMilestones(String alertname, String node) {
    return List.of(
        new Milestone("alert", () -> see.prometheusAlert(alertname, node, "firing").map(a -> alertname + " firing: "
            + labels(a.path("labels"))), () -> see.prometheusWhy(alertname, node, SERIES_READ.get(alertname))),
        new Milestone("decide", () -> decision(node, alertname).map(d -> "remediator: " + outcome(d) + ", playbook "
            + d.path("playbook").asText() + ": " + actions(d)), () -> see.decisionsWhy(node)),
        new Milestone("node", () -> see.quarantine(node).map(q -> node + " quarantined: " + q), () -> see.nodeWhy(node)));
  }

  /** What a repair chapter saw: every milestone's time, the fault to back in service, and the repair's own time. */
  private record Repair(Map<String, Duration> seen, Duration back, Duration took) {}

  /** Waits for a repair's milestones, then clears the simulated XID: the exporter reports 0 after a reset or reboot. */
  private Repair awaitRepair(String node, long since, List<Milestone> milestones, String cleared) throws Exception {
    return awaitRepair(node, "xid", since, milestones, cleared);
  }

  /** Waits for a repair's milestones, then clears the simulated fault of this kind, as the repair does on a real GPU. */
  private Repair awaitRepair(String node, String fault, long since, List<Milestone> milestones, String cleared) throws Exception {
    Map<String, Duration> seen = Milestones.await(since, STEP_TIMEOUT, milestones, this::report, () -> { });
    p.simulator().clear(node, fault);
    t.at("fault", cleared + " (simulator: fault cleared)");
    return new Repair(seen, seen.get("back"), seen.get("repaired").minus(seen.get("repair")));
  }

  /** A repair under way, done, and the node back in service after its diagnostics. */
  private List<Milestone> repairMilestones(String node, String what) {
    return List.of(
        new Milestone("repair", () -> decisionFor(node, "repair_started").map(d -> what + ": " + d.path("detail").asText()),
            () -> see.nodeStateWhy(node)),
        new Milestone("repaired", () -> decisionFor(node, "repaired").map(d -> "repaired: " + d.path("detail").asText()),
            () -> see.nodeStateWhy(node)),
        new Milestone("back", () -> decisionFor(node, "released").filter(d -> see.inService(node))
            .map(d -> "dcgmi diag passed: " + node + " untainted, uncordoned, back in service; " + d.path("detail").asText()),
            () -> see.nodeStateWhy(node)));
  }

  private Optional<JsonNode> decision(String node, String alertname) throws IOException, InterruptedException {
    return decision(node, alertname, "firing");
  }

  /** The webhook's decision about the alert in this status (not one of the loop's stage changes that follow it). */
  private Optional<JsonNode> decision(String node, String alertname, String status) throws IOException, InterruptedException {
    return see.decisions(node).stream().filter(d -> d.path("alertname").asText().equals(alertname)
        && d.path("status").asText().equals(status) && !LOOP_REASONS.contains(d.path("reason").asText())).findFirst();
  }

  /** The newest decision about the node with this reason code. */
  private Optional<JsonNode> decisionFor(String node, String reason) throws IOException, InterruptedException {
    return see.decisions(node).stream().filter(d -> d.path("reason").asText().equals(reason)).findFirst();
  }

  /** The last line of a Job's log tail in a decision's detail. */
  private static String tail(String detail) {
    int verdict = detail.indexOf("dcgmi diag: ");
    if (verdict >= 0) {
      return detail.substring(verdict + "dcgmi diag: ".length()).replaceFirst("( \\(then escalated|; escalated to).*$", "");
    }
    int at = detail.indexOf("log tail: ");
    String log = at < 0 ? detail : detail.substring(at + "log tail: ".length());
    String first = log.lines().filter(l -> l.contains("Fail")).findFirst().orElse(log.lines().findFirst().orElse("")).strip();
    return first.length() > 90 ? first.substring(0, 90) + "..." : first;
  }

  private Optional<String> breakerOpen() throws IOException, InterruptedException {
    JsonNode b = see.safety().path("breaker");
    return b.path("state").asText().equals("open") ? Optional.of("storm breaker OPEN: " + b.path("nodes_in_window").asInt()
        + " nodes started firing within " + b.path("window").asText() + ", more than " + b.path("threshold").asInt() + " allowed")
        : Optional.empty();
  }

  private Optional<String> stormDecided(Map<String, String> into) throws IOException, InterruptedException {
    for (String n : storm) {
      Optional<JsonNode> d = decision(n, XID_ALERT);
      if (d.isEmpty()) {
        return Optional.empty();
      }
      into.put(n, outcome(d.get()));
    }
    return Optional.of("all " + storm.size() + " storm alerts decided: " + countBy(into));
  }

  private Optional<String> stormEvents() {
    String message = null;
    for (String n : storm) {
      var events = see.events(n, "RemediationSuppressed");
      if (events.isEmpty()) {
        return Optional.empty();
      }
      message = events.get(0).getMessage();
    }
    String shown = message.length() > 140 ? message.substring(0, 140) + "..." : message;
    return Optional.of("each storm node has a RemediationSuppressed Event, e.g. \"" + shown + "\"");
  }

  private void report(Milestone m, String description, Duration since) {
    t.at(m.name(), description + " (+" + Timeline.human(since) + ")");
  }

  private static String outcome(JsonNode d) {
    return d.path("outcome").asText() + "/" + d.path("reason").asText();
  }

  private static String actions(JsonNode d) {
    List<String> out = new ArrayList<>();
    d.path("actions").forEach(a -> out.add(a.path("type").asText()));
    return String.join(", ", out);
  }

  private static String labels(JsonNode l) {
    List<String> out = new ArrayList<>();
    for (String k : List.of("xid", "gpu", "source", "severity", "remediate")) {
      if (l.has(k)) {
        out.add(k + "=" + l.path(k).asText());
      }
    }
    return String.join(" ", out);
  }

  private static String countBy(Map<String, String> outcomes) {
    return outcomes.values().stream().collect(Collectors.groupingBy(o -> o, TreeMap::new, Collectors.counting())).entrySet().stream()
        .map(e -> e.getKey() + " x" + e.getValue()).collect(Collectors.joining(", "));
  }
}
