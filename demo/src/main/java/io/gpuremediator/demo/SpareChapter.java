package io.gpuremediator.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.demo.Milestones.Milestone;
import io.gpuremediator.pipeline.Pipeline;
import io.gpuremediator.simcluster.SimCluster;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A hot spare takes a failed node's place. Two nodes of a fine-tuning job's pool ({@value #POOL_LABEL}={@value #POOL}):
 * the job's worker runs on the first, the remediator's spare pool ({@code spares: {select: pool=llm-finetune, count: 1}}
 * in the demo's config) holds the idle second under its spare taint. XID 79 on the first: the quarantine releases the
 * spare at the next look (untainted, schedulable) while the drain still waits on the worker's PodDisruptionBudget (the
 * job checkpointing); once it lets the worker go, the chapter plays the job's
 * controller (the worker made again under its own name, as a training operator does) and the scheduler
 * ({@link SchedulerFilters}: the worker lands on the one node its filters admit, the spare); the failed node is
 * rebooted, diagnosed and, the pool short, held as its spare.
 */
final class SpareChapter {
  static final String POOL_LABEL = "pool";
  static final String POOL = "llm-finetune";
  private static final String SPARE_TAINT = "gpu-remediator.io/spare";
  private static final String WORKER = "llm-finetune-worker-0";
  private static final String BUDGET = "llm-finetune";
  private static final String APP = "app.kubernetes.io/name";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /**
   * What the chapter saw: the milestones' times, the spare released (empty: none), whether it was released before the
   * drain ended, where the worker landed, whether the repaired node became the pool's spare.
   */
  record Seen(Map<String, Duration> milestones, String released, boolean beforeDrained, String landedOn, boolean refilled) {}

  private final Pipeline p;
  private final Timeline t;
  private final Observe see;
  private final String failing;
  private final String spare;
  private final Milestones.Reached report;
  private final List<String> pending = new ArrayList<>();

  SpareChapter(Pipeline p, Timeline t, Observe see, String failing, String spare, Milestones.Reached report) {
    this.p = p;
    this.t = t;
    this.see = see;
    this.failing = failing;
    this.spare = spare;
    this.report = report;
  }

  Seen play(List<Milestone> quarantine, List<Milestone> repair) throws Exception {
    t.chapter("4b. A hot spare takes the place of " + failing + ", whose fine-tuning worker the job needs back at once");
    KubernetesClient kube = p.kube();
    kube.pods().inNamespace(SimCluster.JOB_NAMESPACE).resource(worker(failing)).create();
    kube.policy().v1().podDisruptionBudget().inNamespace(SimCluster.JOB_NAMESPACE).resource(new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName(BUDGET).withNamespace(SimCluster.JOB_NAMESPACE).endMetadata().withNewSpec()
        .withMinAvailable(new IntOrString(1)).withNewSelector().addToMatchLabels(APP, "llm-finetune").endSelector().endSpec()
        .withNewStatus().withDisruptionsAllowed(0).endStatus().build()).create();
    for (String n : List.of(failing, spare)) {
      kube.nodes().withName(n).edit(node -> {
        node.getMetadata().getLabels().put(POOL_LABEL, POOL);
        return node;
      });
    }
    t.at("cluster", failing + " and " + spare + " labelled " + POOL_LABEL + "=" + POOL + "; " + SimCluster.JOB_NAMESPACE + "/"
        + WORKER + " (8 GPUs, nodeSelector " + POOL_LABEL + "=" + POOL + ") runs on " + failing + "; its PodDisruptionBudget "
        + BUDGET + " lets it go once the job has checkpointed");
    Milestones.await(System.nanoTime(), TIMEOUT, List.of(new Milestone("spare", () -> pool().filter(s -> s.contains(spare))
        .filter(s -> tainted(spare)).map(s -> spare + " held as the pool's spare (" + SPARE_TAINT + "=spare:NoSchedule, pool "
            + s.size() + " of 1): idle, no work lands on it"), this::poolWhy)), report, () -> { });
    long at = System.nanoTime();
    p.simulator().inject(failing, 0, "xid", "79");
    t.at("fault", failing + " GPU 0: DCGM_FI_DEV_XID_ERRORS = 79");
    List<Milestone> out = new ArrayList<>(quarantine);
    out.add(new Milestone("released", this::released, this::poolWhy));
    out.add(new Milestone("held", () -> see.stage(failing, "draining").filter(n -> n.path("progress").asText().contains("PDB"))
        .map(n -> "stage draining: " + n.path("progress").asText()), () -> see.nodeStateWhy(failing)));
    Map<String, Duration> seen = new LinkedHashMap<>(Milestones.await(at, TIMEOUT, out, report, () -> { }));
    kube.policy().v1().podDisruptionBudget().inNamespace(SimCluster.JOB_NAMESPACE).withName(BUDGET).editStatus(pdb -> {
      pdb.getStatus().setDisruptionsAllowed(1);
      return pdb;
    });
    t.at("cluster", "the job wrote its checkpoint: " + BUDGET + " now allows one disruption");
    List<Milestone> back = new ArrayList<>();
    back.add(new Milestone("drained", () -> decisionFor("drained").map(d -> "drained: " + WORKER + " evicted from " + failing),
        () -> see.nodeStateWhy(failing)));
    back.add(new Milestone("landed", () -> land(kube), () -> pending.isEmpty() ? WORKER + " not evicted yet"
        : "FailedScheduling: " + pending.get(pending.size() - 1)));
    back.addAll(repair.subList(0, 2));
    back.add(new Milestone("refilled", () -> decisionFor("released").filter(d -> tainted(failing) && see.quarantine(failing)
        .isEmpty() && !Boolean.TRUE.equals(see.node(failing).getSpec().getUnschedulable()))
        .map(d -> "dcgmi diag passed: " + failing + " released, and the pool being short, held as its spare"), this::poolWhy));
    seen.putAll(Milestones.await(at, TIMEOUT, back, report, () -> { }));
    p.simulator().clear(failing, "xid");
    t.at("fault", failing + "'s exporter came back after the reboot reporting no XID (simulator: fault cleared)");
    String landed = Optional.ofNullable(kube.pods().inNamespace(SimCluster.JOB_NAMESPACE).withName(WORKER).get())
        .map(w -> w.getSpec().getNodeName()).orElse("");
    List<Event> releases = see.events(spare, "SpareReleased");
    Optional<Instant> drained = decisionFor("drained").map(d -> Instant.parse(d.path("time").asText()));
    boolean before = !releases.isEmpty() && drained.isPresent()
        && Instant.parse(releases.get(0).getFirstTimestamp()).isBefore(drained.get());
    return new Seen(seen, releases.isEmpty() ? "" : spare, before, landed, seen.containsKey("refilled"));
  }

  private Optional<String> released() throws IOException, InterruptedException {
    if (tainted(spare) || Boolean.TRUE.equals(see.node(spare).getSpec().getUnschedulable())
        || pool().map(s -> s.contains(spare)).orElse(true) || see.events(spare, "SpareReleased").isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(spare + " released from the pool, untainted and schedulable: \"" + see.events(spare, "SpareReleased")
        .get(0).getMessage() + "\"");
  }

  /**
   * Once the drain evicted the worker, its job makes it again and the scheduler's filters place it; while no node
   * fits, it is pending with the scheduler's message.
   */
  private Optional<String> land(KubernetesClient kube) {
    Pod now = kube.pods().inNamespace(SimCluster.JOB_NAMESPACE).withName(WORKER).get();
    if (now != null) {
      return failing.equals(now.getSpec().getNodeName()) ? Optional.empty() : Optional.of(WORKER + " made again by its job"
          + " (played by the chapter) and placed by the scheduler's filters on " + now.getSpec().getNodeName()
          + (pending.isEmpty() ? "" : " after " + pending.size() + " look(s) pending: " + pending.get(0)));
    }
    SchedulerFilters.Placement placed = SchedulerFilters.place(worker(null), kube.nodes().list().getItems(),
        kube.pods().inAnyNamespace().list().getItems().stream().filter(x -> x.getSpec().getNodeName() != null).toList());
    if (placed.node().isEmpty()) {
      pending.add(placed.why());
      return Optional.empty();
    }
    kube.pods().inNamespace(SimCluster.JOB_NAMESPACE).resource(worker(placed.node().get())).create();
    return land(kube);
  }

  /** The job's worker: its whole node's GPUs, kept to the pool's nodes. */
  private static Pod worker(String node) {
    return new PodBuilder().withNewMetadata().withName(WORKER).withNamespace(SimCluster.JOB_NAMESPACE)
        .addToLabels(APP, "llm-finetune").addToLabels("training.kubeflow.org/replica-index", "0")
        .endMetadata().withNewSpec().withNodeName(node).addToNodeSelector(POOL_LABEL, POOL).addNewContainer()
        .withName("trainer").withImage("nvcr.io/nvidia/pytorch:24.08-py3").withNewResources()
        .addToLimits(SchedulerFilters.GPU, new Quantity("8")).endResources().endContainer().endSpec()
        .withNewStatus().withPhase(node == null ? "Pending" : "Running").endStatus().build();
  }

  /** The spare pool's nodes as GET /api/v1/fleet shows them; empty when the service shows no pool. */
  private Optional<List<String>> pool() throws IOException, InterruptedException {
    JsonNode spares = p.http().get(p.remediatorUrl() + "/api/v1/fleet", p.operatorToken()).path("spares");
    if (spares.isMissingNode()) {
      return Optional.empty();
    }
    List<String> nodes = new ArrayList<>();
    spares.path("nodes").forEach(n -> nodes.add(n.asText()));
    return Optional.of(nodes);
  }

  private String poolWhy() throws IOException, InterruptedException {
    return "GET /api/v1/fleet shows spares " + p.http().get(p.remediatorUrl() + "/api/v1/fleet", p.operatorToken())
        .path("spares") + "; " + spare + " tainted: " + tainted(spare) + ", " + failing + " tainted: " + tainted(failing);
  }

  private boolean tainted(String node) {
    var n = see.node(node);
    return n.getSpec().getTaints() != null && n.getSpec().getTaints().stream().anyMatch(x -> x.getKey().equals(SPARE_TAINT));
  }

  private Optional<JsonNode> decisionFor(String reason) throws IOException, InterruptedException {
    return see.decisions(failing).stream().filter(d -> d.path("reason").asText().equals(reason)).findFirst();
  }
}
