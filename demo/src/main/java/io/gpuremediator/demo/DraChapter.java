package io.gpuremediator.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.demo.Milestones.Milestone;
import io.gpuremediator.pipeline.Pipeline;
import io.gpuremediator.simapi.DaemonSetController;
import io.gpuremediator.simapi.DraShapes;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One GPU of a DRA node fenced, not its node (Kubernetes 1.37's device taints). Two nodes run the GPU Operator's DRA
 * stack: labelled {@code nvidia.com/gpu.deploy.dra-driver=true}, their GPUs published in ResourceSlices of
 * {@code gpu.nvidia.com} under the UUIDs their exporter reports; on the first, eight inference pods each hold one GPU
 * through a ResourceClaim, and the GPU Operator v26.7 DRA stack's exporter holds all eight through its one claim
 * ({@code allocationMode: All}, {@code adminAccess: true}, no tolerations). XID 48 on one GPU: the remediator writes a
 * DeviceTaintRule on that GPU (NoSchedule: a NoExecute rule would have the emulated API server's device taint eviction
 * controller delete the exporter too) and evicts the pod using it through the Eviction API, and the chapter plays its
 * Deployment and the scheduler (a new pod on a free GPU of the second node). The GPU is reset and diagnosed alone,
 * then unfenced; the node is never cordoned, the other seven pods keep running throughout, and so does the exporter:
 * the fenced GPU's series are still scraped while it is fenced.
 */
final class DraChapter {
  static final String NAMESPACE = "ml-inference";
  private static final String DRA_LABEL = "nvidia.com/gpu.deploy.dra-driver";
  /**
   * The label the exporter's DaemonSet places its pods by (tests/real/gpu-operator/v26.7.0-dra/0700_daemonset.yaml),
   * which the operator sets on its DRA nodes and a GPU reset pauses.
   */
  private static final String EXPORTER_DEPLOY = "nvidia.com/gpu.deploy.dcgm-exporter-dra";
  private static final String ALERT = "GpuXidHardwareError";
  private static final int GPU = 3;
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  /** What the chapter saw: the milestones' times, whether the node was ever cordoned, the pods left running. */
  record Seen(Map<String, Duration> milestones, boolean cordoned, int othersRunning, String movedTo, boolean exporterKept) {}

  private final Pipeline p;
  private final Timeline t;
  private final Observe see;
  private final String node;
  private final String spare;
  private final Milestones.Reached report;

  DraChapter(Pipeline p, Timeline t, Observe see, String node, String spare, Milestones.Reached report) {
    this.p = p;
    this.t = t;
    this.see = see;
    this.node = node;
    this.spare = spare;
    this.report = report;
  }

  Seen play() throws Exception {
    t.chapter("3c. XID 48 on GPU " + GPU + " of " + node + ", a node of the GPU Operator's DRA stack: one GPU out, not the node");
    KubernetesClient kube = p.kube();
    Map<Integer, String> uuids = publish(node);
    publish(spare);
    for (int gpu = 0; gpu < 8; gpu++) {
      pod(kube, "inference-" + gpu, node, gpu);
    }
    String exporter = DraShapes.exporterPod(node).getMetadata().getName();
    kube.genericKubernetesResources(DraShapes.CLAIMS).inNamespace(DraShapes.EXPORTER_NAMESPACE)
        .resource(DraShapes.exporterClaim(node, uuids.size())).create();
    kube.nodes().withName(node).edit(n -> {
      n.getMetadata().getLabels().put(EXPORTER_DEPLOY, "true");
      return n;
    });
    try (DaemonSetController daemonSet = DaemonSetController.of(kube, DraShapes.EXPORTER_NAMESPACE, DraShapes.EXPORTER,
        Map.of(EXPORTER_DEPLOY, "true"), DraShapes::exporterPod).start()) {
      return fenced(kube, uuids, exporter, daemonSet);
    }
  }

  private Seen fenced(KubernetesClient kube, Map<Integer, String> uuids, String exporter, DaemonSetController daemonSet)
      throws Exception {
    Milestones.await(System.nanoTime(), TIMEOUT, List.of(new Milestone("exporter", () -> daemonSet.runsOn(node)
        ? Optional.of(DraShapes.EXPORTER_NAMESPACE + "/" + exporter + " placed by its DaemonSet") : Optional.empty())),
        report, () -> { });
    t.at("node", node + " and " + spare + " labelled " + DRA_LABEL + "=true, their GPUs published in ResourceSlices of"
        + " gpu.nvidia.com (UUIDs as their exporter reports them); 8 inference pods on " + node + ", one GPU each (ResourceClaims);"
        + " its exporter " + DraShapes.EXPORTER_NAMESPACE + "/" + exporter + " holds all " + uuids.size()
        + " (the v26.7 claim: allocationMode All, adminAccess)");
    long at = System.nanoTime();
    p.simulator().inject(node, GPU, "xid", "48");
    String uuid = uuids.get(GPU);
    t.at("fault", node + " GPU " + GPU + " (" + uuid + "): DCGM_FI_DEV_XID_ERRORS = 48");
    boolean[] cordoned = {false};
    boolean[] kept = {true};
    boolean[] pausedForReset = {false};
    String[] moved = {""};
    Map<String, Duration> seen = Milestones.await(at, TIMEOUT, List.of(
        new Milestone("alert", () -> see.prometheusAlert(ALERT, node, "firing").map(a -> ALERT + " firing with UUID "
            + a.path("labels").path("UUID").asText())),
        new Milestone("fence", () -> decision("gpu_fenced").map(d -> d.path("detail").asText())),
        new Milestone("evicted", () -> Optional.ofNullable(kube.pods().inNamespace(NAMESPACE).withName("inference-" + GPU).get())
            .isPresent() ? Optional.empty() : Optional.of(moved[0] = move(kube))),
        new Milestone("exporting", () -> !rules(kube).isEmpty() && exporting(kube, exporter) ? Optional.of(DraShapes.EXPORTER_NAMESPACE + "/" + exporter
            + " still running while GPU " + GPU + " is fenced; its series still scraped") : Optional.empty()),
        new Milestone("repair", () -> decision("repair_started").map(d -> "the GPU alone: " + d.path("detail").asText())),
        new Milestone("diagnose", () -> decision("diagnose_started").map(d -> d.path("detail").asText())),
        new Milestone("unfenced", () -> decision("gpu_unfenced").filter(d -> rules(kube).isEmpty())
            .map(d -> d.path("detail").asText()))), report, () -> {
          cordoned[0] |= cordoned(kube);
          // The reset pauses it by its deploy label for its seconds (GpuClients); the fence must never remove it.
          pausedForReset[0] |= !"true".equals(kube.nodes().withName(node).get().getMetadata().getLabels()
              .get(EXPORTER_DEPLOY));
        });
    p.simulator().clear(node, "xid");
    t.at("fault", node + " GPU " + GPU + " reports no XID after its reset (simulator: fault cleared)");
    int others = (int) kube.pods().inNamespace(NAMESPACE).list().getItems().stream()
        .filter(pod -> node.equals(pod.getSpec().getNodeName())).count();
    t.at("node", node + (cordoned[0] || cordoned(kube) ? " WAS CORDONED" : " never cordoned or tainted") + "; " + others
        + " of its 7 other inference pods kept running throughout");
    Milestones.await(System.nanoTime(), TIMEOUT, List.of(new Milestone("exporter back", () -> daemonSet.runsOn(node)
        ? Optional.of(DraShapes.EXPORTER_NAMESPACE + "/" + exporter + " runs on " + node) : Optional.empty())),
        report, () -> { });
    // Kept: its pod left only when its DaemonSet took it away (the reset's pause), never deleted by anything else,
    // which its DaemonSet would have placed again without a removal of its own.
    List<String> history = daemonSet.history().stream().filter(h -> h.endsWith(" " + node)).toList();
    kept[0] = history.stream().filter(h -> h.startsWith("placed")).count()
        == history.stream().filter(h -> h.startsWith("removed")).count() + 1;
    t.at("node", DraShapes.EXPORTER_NAMESPACE + "/" + exporter + (kept[0] ? " ran and exported throughout the fence"
        + (pausedForReset[0] ? "; paused by its deploy label for the reset alone (DCGM holds the GPUs open), back after"
        : "") : " WAS EVICTED"));
    return new Seen(seen, cordoned[0], others, moved[0], kept[0] && exporting(kube, exporter));
  }

  /** Labels the node a DRA node and publishes its GPUs as NVIDIA's driver does, under the UUIDs its exporter reports. */
  private Map<Integer, String> publish(String name) throws IOException, InterruptedException {
    Map<Integer, String> uuids = new TreeMap<>();
    for (JsonNode s : see.series("DCGM_FI_DEV_GPU_TEMP{node=\"" + name + "\"}")) {
      uuids.put(s.path("metric").path("gpu").asInt(), s.path("metric").path("UUID").asText());
    }
    p.kube().genericKubernetesResources(DraShapes.SLICES).resource(DraShapes.slice(name, uuids, Map.of())).create();
    p.kube().nodes().withName(name).edit(n -> {
      n.getMetadata().getLabels().put(DRA_LABEL, "true");
      return n;
    });
    return uuids;
  }

  /** A running pod on {@code on} whose ResourceClaim holds its GPU {@code gpu}. */
  private static void pod(KubernetesClient kube, String name, String on, int gpu) {
    kube.pods().inNamespace(NAMESPACE).resource(DraShapes.pod(NAMESPACE, name, on, "nvcr.io/nvidia/tritonserver:25.08-py3"))
        .create();
    kube.genericKubernetesResources(DraShapes.CLAIMS).inNamespace(NAMESPACE)
        .resource(DraShapes.claim(NAMESPACE, name, on, gpu)).createOr(r -> r.update());
  }

  /** The exporter pod is there and Prometheus still has the fenced GPU's series from it. */
  private boolean exporting(KubernetesClient kube, String exporter) throws IOException, InterruptedException {
    return kube.pods().inNamespace(DraShapes.EXPORTER_NAMESPACE).withName(exporter).get() != null
        && !see.series("DCGM_FI_DEV_GPU_TEMP{node=\"" + node + "\", gpu=\"" + GPU + "\"}").isEmpty();
  }

  /** The evicted pod's Deployment makes a new one, and the scheduler gives it a free GPU of the spare node. */
  private String move(KubernetesClient kube) {
    pod(kube, "inference-" + GPU + "-r2", spare, 0);
    return "inference-" + GPU + " evicted by the fence through the Eviction API; its new pod (the chapter plays the"
        + " Deployment and the scheduler) runs on GPU 0 of " + spare;
  }

  private boolean cordoned(KubernetesClient kube) {
    Node n = kube.nodes().withName(node).get();
    return Boolean.TRUE.equals(n.getSpec().getUnschedulable())
        || n.getSpec().getTaints() != null && n.getSpec().getTaints().stream().anyMatch(x -> x.getKey().startsWith("gpu-remediator"));
  }

  private static List<GenericKubernetesResource> rules(KubernetesClient kube) {
    return new ArrayList<>(kube.genericKubernetesResources(DraShapes.RULES).list().getItems());
  }

  private Optional<JsonNode> decision(String reason) throws IOException, InterruptedException {
    return see.decisions(node).stream().filter(d -> d.path("reason").asText().equals(reason)).findFirst();
  }

}
