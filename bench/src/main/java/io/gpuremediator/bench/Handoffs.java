package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.RemediatorService;
import io.gpuremediator.simcluster.SimCluster;
import io.gpuremediator.simcluster.SimNode;
import io.gpuremediator.simcluster.StageHandoffs;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Stage handoffs over {@value #EPISODES} episodes through the emulated API: one webhook sends {@value #EPISODES} nodes
 * down the shipped ladder at once (half a GPU reset, half a reboot), each node with a pod to drain; the simulated
 * cluster's Job controller and kubelet run the Jobs and reboots. {@link StageHandoffs} measures, from watches in this
 * JVM, each step's end to the remediator's next write about the node. The loop's timer and retry delay are at 10
 * minutes: a handoff that waited for the timer would take minutes, and the run would not end.
 */
final class Handoffs {
  static final int EPISODES = 100;
  /** The first GPU nodes carry the simulated training job under a budget that allows nothing: not used here. */
  private static final int SKIPPED = 4;
  private static final long DEADLINE_SECONDS = 300;

  private Handoffs() {}

  static void run(Path playbooks, Path work, Path jfr) throws Exception {
    List<SimNode> nodes = IntStream.range(0, SKIPPED + EPISODES).mapToObj(i -> new SimNode("gpu-node-" + i,
        SimNode.Kind.GPU, "10.0." + (i / 250) + "." + (i % 250 + 1))).toList();
    try (SimCluster cluster = SimCluster.start("127.0.0.1", 0)) {
      cluster.seed(nodes);
      cluster.preloadNodes(MockApiServer.fleetNodes(SKIPPED + EPISODES)); // the rest of the fleet, as the other sections
      KubernetesClient client = cluster.client();
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("batch").endMetadata().build()).create();
      List<String> names = nodes.subList(SKIPPED, nodes.size()).stream().map(SimNode::name).toList();
      for (String node : names) {
        client.pods().inNamespace("batch").resource(new PodBuilder().withNewMetadata().withName("job-on-" + node)
            .withNamespace("batch").endMetadata().withNewSpec().withNodeName(node).addNewContainer().withName("c")
            .withImage("img").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
      }
      Path config = work.resolve("handoffs-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nleader_election: {enabled: false}\nsafety: {max_unavailable: 100%, max_draining: 100%, rate_limit: 100000/1h,"
          + " breaker: {nodes: 100000, window: 10m}}\nloop: {interval: 10m, retry_delay: 10m}\n" + Bench.LOAD_LIMITS
          + MockApiServer.SELECTOR);
      try (StageHandoffs handoffs = new StageHandoffs(client, "gpu-remediator");
          RemediatorService service = new RemediatorService(ConfigLoader.load(config).config().orElseThrow(),
              KubeApi.of(client), Clock.systemUTC())) {
        int port = Bench.awaitReady(service.start());
        jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        recording.start();
        long t0 = System.nanoTime();
        Bench.post(port, repairs(names), "\"applied\":" + EPISODES);
        int back = awaitBackInService(client, names, handoffs);
        double took = (System.nanoTime() - t0) / 1e9;
        recording.stop();
        recording.dump(jfr);
        recording.close();
        System.out.printf(Locale.ROOT, "%d episodes (%d GPU resets, %d reboots, each after a drain) back in service in %.1f s"
            + " with the loop's timer at 10 minutes%n", back, EPISODES / 2, EPISODES - EPISODES / 2, took);
        StageHandoffs.report(handoffs.samples(), 1).forEach(System.out::println);
      }
    }
  }

  /** Waits until every node is back in service (uncordoned, its episode in the ledger's history). */
  private static int awaitBackInService(KubernetesClient client, List<String> names, StageHandoffs handoffs)
      throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE_SECONDS * 1_000_000_000L;
    int back = 0;
    while (System.nanoTime() < deadline) {
      back = 0;
      for (String name : names) {
        Node n = client.nodes().withName(name).get();
        String ledger = n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations()
            .getOrDefault("gpu-remediator.io/state", "");
        back += !Boolean.TRUE.equals(n.getSpec().getUnschedulable()) && ledger.contains("\"history\":[{")
            && ledger.contains("\"episodes\":{}") ? 1 : 0;
      }
      if (back == names.size()) {
        return back;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(back + " of " + names.size() + " nodes back in service after " + DEADLINE_SECONDS
        + " s; step ends not handed off: " + handoffs.waiting());
  }

  /** One webhook: XID 48 (a GPU reset) on every other node, XID 79 (a reboot) on the rest. */
  private static String repairs(List<String> nodes) {
    JsonArray alerts = new JsonArray();
    for (int i = 0; i < nodes.size(); i++) {
      boolean reboot = i % 2 == 1;
      String node = nodes.get(i);
      alerts.add(new JsonObject().put("status", "firing").put("labels", new JsonObject().put("alertname", "GpuXidHardwareError")
          .put("node", node).put("gpu", "2").put("xid", reboot ? "79" : "48").put("recommended_action",
              reboot ? "reboot" : "reset_gpu").put("source", "dcgm").put("severity", "critical").put("remediate", "true"))
          .put("annotations", new JsonObject().put("summary", "XID")).put("startsAt", "2026-11-26T10:00:00Z")
          .put("endsAt", "0001-01-01T00:00:00Z").put("fingerprint", String.format("%016x", 0xabc0000L + i)));
    }
    return new JsonObject().put("receiver", "remediator").put("status", "firing").put("alerts", alerts)
        .put("groupLabels", new JsonObject()).put("commonLabels", new JsonObject()).put("commonAnnotations", new JsonObject())
        .put("externalURL", "http://alertmanager:9093").put("version", "4").put("groupKey", "{}:{}").put("truncatedAlerts", 0)
        .encode();
  }
}
