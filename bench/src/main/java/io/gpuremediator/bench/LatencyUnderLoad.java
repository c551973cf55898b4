package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.service.RemediatorService;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Webhook to cordon while the service is busy: a steady stream of {@value #PER_SECOND} firing reset-class alerts a second
 * on distinct nodes, each with a pod to drain, so that drains, GPU reset Jobs and diagnostic Jobs of the earlier alerts
 * run in the background (the simulated cluster's Job controller and kubelet in this JVM, on a client of their own; the
 * service has its own, as {@code serve} builds it) while each new alert is answered. Halfway to the next alert, a floor
 * sample: the HTTP hop (a webhook no playbook matches) plus the one call the answer waits for, made by a bare client on
 * another node (an update that taints and cordons it and writes an annotation of the ledger's size). Taken on the heels
 * of the webhook's answer, the floor found every thread of the path awake and its hop took 0.95 ms where, taken first, it
 * took 1.43 ms (one run, the order alternated): a floor measured warm against a webhook that arrives cold.
 *
 * <p>The fleet is {@link MockApiServer#fleet}'s: 20,000 selected GPU nodes of 100,000. Before the emulated API server
 * answered from indexes, it scanned its whole store for each request, and at 20,000 nodes its answers to this load took
 * over 20 s (a floor update timed out): the section ran at 1,000 nodes.
 */
final class LatencyUnderLoad {
  static final int PER_SECOND = 10;
  private static final int WARMUP_SECONDS = 10;
  private static final int MEASURED_SECONDS = 30;
  /** The floor's nodes: at the other end of the fleet, never alerted. */
  private static final int FLOOR_BASE = MockApiServer.SELECTED / 2;

  private LatencyUnderLoad() {}

  static void run(Path playbooks, Path work, Path jfr) throws Exception {
    int alerts = PER_SECOND * (WARMUP_SECONDS + MEASURED_SECONDS);
    try (MockApiServer api = MockApiServer.fleet();
        KubernetesClient bare = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.client().getConfiguration())
            .withRequestRetryBackoffLimit(0).build()).build()) {
      KubernetesClient client = api.client();
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("batch").endMetadata().build()).create();
      List<Pod> pods = new ArrayList<>(alerts);
      for (int i = 0; i < alerts; i++) {
        pods.add(new PodBuilder().withNewMetadata().withName("worker-" + i).withNamespace("batch").endMetadata()
            .withNewSpec().withNodeName(MockApiServer.nodeName(i)).addNewContainer().withName("c").withImage("img")
            .endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build());
      }
      api.preloadPods("batch", pods); // straight into the store, as the fleet: no request, no watch event each
      Path config = work.resolve("under-load-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nleader_election: {enabled: false}\nnode_selector: nvidia.com/gpu.present=true\nsafety: {max_unavailable: 100%,"
          + " max_draining: 100%, rate_limit: 100000/1h, breaker: {nodes: 100000, window: 10m}}\n" + Bench.LOAD_LIMITS
          + "kubernetes: {qps: " + MultiNodeEvent.QPS + ", burst: " + MultiNodeEvent.BURST + "}\n");
      RemediatorConfig loaded = ConfigLoader.load(config).config().orElseThrow();
      RemediatorConfig.Kubernetes k = loaded.kubernetes();
      try (RemediatorService service = new RemediatorService(loaded, api.serviceApi(work, k.qps(), k.burst(),
          k.writesInFlight()), Clock.systemUTC())) {
        int port = Bench.awaitReady(service.start());
        List<Double> ms = new ArrayList<>();
        List<Double> floor = new ArrayList<>();
        List<Double> hop = new ArrayList<>();
        jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        long period = 1_000_000_000L / PER_SECOND;
        long next = System.nanoTime();
        int late = 0;
        for (int i = 0; i < alerts; i++) {
          if (i == PER_SECOND * WARMUP_SECONDS) {
            recording.start();
          }
          if (!awaitTurn(next) && i > 0) { // the stream's own pace: one alert every 100 ms
            late++;
          }
          double took = Bench.post(port, Payloads.reset(i), "\"reason\":\"actions_applied\"");
          // The floor's sample halfway to the next alert: from the same state as a webhook finds (the service's threads
          // parked for tens of milliseconds), not on the heels of the webhook's answer, with every thread of the path awake.
          awaitTurn(next + period / 2);
          next += period;
          double hopTook = Bench.post(port, Payloads.single("firing", i).replace("GpuXidHardwareError", "NoSuchAlert"),
              "\"no_playbook\"");
          double callTook = floorCordon(bare, MockApiServer.nodeName(FLOOR_BASE + i));
          if (i >= PER_SECOND * WARMUP_SECONDS) {
            ms.add(took);
            floor.add(hopTook + callTook);
            hop.add(hopTook);
          }
        }
        recording.stop();
        recording.dump(jfr);
        recording.close();
        String background = backgroundWork(port);
        Samples cordon = Samples.of(ms);
        Samples floors = Samples.of(floor);
        System.out.printf(Locale.ROOT, "%d alerts at %d a second after %d s of warm-up (%d sent late): webhook to cordon p50 %.1f"
            + " ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; meanwhile %s%n", cordon.size(), PER_SECOND, WARMUP_SECONDS, late,
            cordon.p50(), cordon.p90(), cordon.p99(), cordon.max(), background);
        System.out.printf(Locale.ROOT, "floor, each sample the HTTP hop plus the one call the answer waits for (an update that"
            + " taints, cordons and writes a ledger-sized annotation) by a bare client: p50 %.1f ms, p99 %.1f ms (hop alone p50"
            + " %.1f ms)%n", floors.p50(), floors.p99(), Samples.of(hop).p50());
        System.out.printf(Locale.ROOT, "webhook to cordon under load p99 %.1f ms; target < 200 ms -> %s%n", cordon.p99(),
            cordon.p99() < 200 ? "MET" : "NOT MET");
        Bench.ratios("webhook to cordon under load", cordon, floors, 1.5, 2);
      }
    }
  }

  /** Parks until {@code at} ({@link System#nanoTime()}); says whether it had to (false: already past it). */
  private static boolean awaitTurn(long at) {
    boolean waited = false;
    for (long wait = at - System.nanoTime(); wait > 0; wait = at - System.nanoTime()) {
      LockSupport.parkNanos(wait); // may return early: the deadline is what counts
      waited = true;
    }
    return waited;
  }

  /** What the background was doing at the end: the episodes by stage, from the service's own gauge. */
  private static String backgroundWork(int port) throws Exception {
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    StringBuilder out = new StringBuilder();
    for (String line : metrics.split("\n")) {
      if (line.startsWith("remediator_episode_stage{") && !line.endsWith(" 0.0")) {
        out.append(out.length() == 0 ? "" : ", ").append(line.substring(line.indexOf("stage=\"") + 7, line.indexOf("\",")))
            .append(' ').append((long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
      }
    }
    return "episodes going on in the background, by stage, at the loop's last scan (its timer): " + (out.length() == 0 ? "none" : out);
  }

  /** The one call the answer waits for, made directly on another node (read first, outside the time). */
  static double floorCordon(KubernetesClient client, String name) {
    Node node = client.nodes().withName(name).get();
    long t0 = System.nanoTime();
    node.getSpec().setTaints(List.of(new TaintBuilder().withKey("floor.example/unhealthy").withValue("xid-48")
        .withEffect("NoSchedule").build()));
    node.getSpec().setUnschedulable(true);
    Map<String, String> annotations = new HashMap<>(node.getMetadata().getAnnotations() == null ? Map.of()
        : node.getMetadata().getAnnotations());
    annotations.put("floor.example/state", LEDGER_SIZED);
    node.getMetadata().setAnnotations(annotations);
    client.nodes().resource(node).update();
    return (System.nanoTime() - t0) / 1e6;
  }

  /** An annotation the size of a new episode's ledger (its alert's labels and annotations kept for the later steps). */
  private static final String LEDGER_SIZED = "x".repeat(1500);
}
