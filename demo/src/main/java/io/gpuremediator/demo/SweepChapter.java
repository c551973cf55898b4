package io.gpuremediator.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuremediator.demo.Milestones.Milestone;
import io.gpuremediator.pipeline.Pipeline;
import io.gpuremediator.pipeline.Poll;
import io.gpuremediator.simapi.JobKubelet;
import io.gpuremediator.simcluster.SimCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A sweep finds a bad GPU on an idle node before any job lands on it. The demo's config sweeps the nodes labelled
 * {@value #SWEEP_LABEL}={@value #SWEEP_VALUE} ({@code sweeps: [{name: idle-diag, select: ..., playbook: gpu-sweep}]});
 * the chapter gives an idle node a GPU whose PCIe link replays packets (the recorded dcgmi document
 * {@code diag-v4-pcie-replay-fail.json}: no metric, no XID, only dcgmi diag sees it) and labels it: the sweep's Job
 * runs dcgmi diag there at the lowest priority, fails, and GpuSweepFailed opens an episode of gpu-sweep: quarantined,
 * diagnosed again, and the rung DCGM names (a reboot: gpu-verdict-reboot) taken; the reboot clears the replays, and the
 * node returns having never run a job.
 */
final class SweepChapter {
  static final String SWEEP_LABEL = "sweep";
  static final String SWEEP_VALUE = "weekly";
  private static final String DOCUMENT = "pcie-replay-fail";
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final Duration CONFLICT_RETRIES = Duration.ofSeconds(10);
  private static final Duration CONFLICT_PAUSE = Duration.ofMillis(50);

  /** What the chapter saw: the milestones' times, whether no pod of a job was ever on the node, and whether it returned. */
  record Seen(Map<String, Duration> milestones, boolean noJobLanded, boolean back) {}

  private final Pipeline p;
  private final Timeline t;
  private final Observe see;
  private final String node;
  private final Milestones.Reached report;
  private boolean jobLanded;

  SweepChapter(Pipeline p, Timeline t, Observe see, String node, Milestones.Reached report) {
    this.p = p;
    this.t = t;
    this.see = see;
    this.node = node;
    this.report = report;
  }

  Seen play() throws Exception {
    t.chapter("4c. A sweep finds a bad GPU on idle " + node + " before any job lands on it");
    labels(l -> l.put(JobKubelet.DIAG_DOCUMENT_LABEL, DOCUMENT));
    t.note("in this simulated cluster " + node + "'s GPU 5 replays PCIe packets: no metric and no XID shows it, dcgmi diag"
        + " does (tests/real/dcgm/diag-v4-" + DOCUMENT + ".json)");
    long at = System.nanoTime();
    labels(l -> l.put(SWEEP_LABEL, SWEEP_VALUE));
    t.at("cluster", node + " labelled " + SWEEP_LABEL + "=" + SWEEP_VALUE + ": the sweep idle-diag selects it; no pod holds"
        + " its GPUs");
    Map<String, Duration> seen = new LinkedHashMap<>(Milestones.await(at, TIMEOUT, List.of(
        new Milestone("swept", () -> decisionFor("sweep_started").map(d -> d.path("detail").asText()
            + " (PriorityClass gpu-remediator-sweep: any pod preempts it)"), () -> see.decisionsWhy(node)),
        new Milestone("failed", () -> see.decisions(node).stream().filter(d -> d.path("alertname").asText()
            .equals("GpuSweepFailed") && d.path("reason").asText().equals("actions_applied")).findFirst()
            .map(d -> "the diagnostic failed: GpuSweepFailed opens an episode of " + d.path("playbook").asText()),
            () -> see.decisionsWhy(node)),
        new Milestone("node", () -> see.quarantine(node).map(q -> node + " quarantined: " + q), () -> see.nodeWhy(node)),
        new Milestone("verdict", () -> decisionFor("escalated").map(d -> "diagnosed again, drained: " + d.path("detail")
            .asText()), () -> see.nodeStateWhy(node)),
        new Milestone("repair", () -> decisionFor("repair_started").map(d -> "reboot: " + d.path("detail").asText()),
            () -> see.nodeStateWhy(node))), report, this::watchForJobs));
    labels(l -> l.remove(JobKubelet.DIAG_DOCUMENT_LABEL));
    t.at("fault", node + "'s reboot retrains its PCIe link: GPU 5 replays no more (simulator: fault cleared)");
    seen.putAll(Milestones.await(at, TIMEOUT, List.of(new Milestone("repaired", () -> decisionFor("repaired")
        .map(d -> "repaired: " + d.path("detail").asText()), () -> see.nodeStateWhy(node)), new Milestone("back", () -> decisionFor("released")
        .filter(d -> see.inService(node)).map(d -> "dcgmi diag passed: " + node + " back in service, never having run a job"),
        () -> see.nodeStateWhy(node))), report, this::watchForJobs));
    watchForJobs();
    return new Seen(seen, !jobLanded, seen.containsKey("back"));
  }

  /**
   * Changes the node's labels, as a person's kubectl does: read fresh and written again when the write meets another's
   * (409: the remediator writes the node too), within a deadline ({@link Poll}).
   */
  private void labels(Consumer<Map<String, String>> change) throws Exception {
    Poll.until("the labels of " + node + " changed", CONFLICT_RETRIES, CONFLICT_PAUSE, () -> {
      p.kube().nodes().withName(node).edit(n -> {
        change.accept(n.getMetadata().getLabels());
        return n;
      });
      return Optional.of(true);
    });
  }

  /** Notes whether a pod of a job (the training job's namespace) is on the node, at each poll of the milestones. */
  private void watchForJobs() {
    jobLanded |= see.pods(node).stream().anyMatch(pod -> pod.startsWith(SimCluster.JOB_NAMESPACE + "/"));
  }

  private Optional<JsonNode> decisionFor(String reason) throws IOException, InterruptedException {
    return see.decisions(node).stream().filter(d -> d.path("reason").asText().equals(reason)).findFirst();
  }
}
