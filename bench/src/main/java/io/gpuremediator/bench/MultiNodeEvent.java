package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.service.RemediatorService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A real multi-node event: one webhook naming {@value #NODES} distinct nodes, every limit opened, the service in this
 * JVM with the API throttle of the config below against the simulated cluster. It prints nodes quarantined a second, the
 * share of the API throttle the service used while answering (requests the API server answered over what the budget
 * allowed in that time: the burst plus qps times the seconds), and how long the webhook took against Alertmanager's
 * shortest flush deadline (10 s).
 */
final class MultiNodeEvent {
  static final int NODES = 1000;
  /**
   * The budget of this run: opened three times past the default (50/100), and below what the emulated API server in this
   * JVM sustains for node writes on a 2-core machine (about 175 a second), so the budget, not the server, is the limit.
   */
  static final int QPS = 150;
  static final int BURST = 150;
  static final int WRITES_IN_FLIGHT = 16;
  /** Alertmanager gives a notification at least this long (max(group_interval, 10s)) before it gives up on it. */
  static final double ALERTMANAGER_DEADLINE_SECONDS = 10;

  /** The emulated API server's request log keeps this many. */
  private static final int LOGGED = 10_000;

  private MultiNodeEvent() {}

  /** A request's kind: its method and path with names and queries left out. */
  static String kind(String request) {
    return request.replaceAll("gpu-node-\\d+", "N").replaceAll("/events/[^?]*", "/events/E").replaceAll("\\?.*", "?..");
  }

  /**
   * Whether a request (METHOD path) is one the API throttle paces: node reads and writes, Events, pods, evictions, Jobs;
   * not the informers' lists and watches, the fleet state's ConfigMap or the Lease.
   */
  static boolean budgeted(String request) {
    String path = request.substring(request.indexOf(' ') + 1);
    boolean informer = request.startsWith("GET ") && (path.contains("watch=true") && !path.startsWith("/api/v1/pods?")
        || path.startsWith("/api/v1/nodes?") || path.matches("/apis/batch/v1/namespaces/[^/]+/jobs(\\?.*)?"));
    // The simulated cluster's own Karpenter and Cluster API controllers poll in this JVM too: not the service's calls.
    boolean simulator = path.startsWith("/apis/karpenter.sh/") || path.startsWith("/apis/cluster.x-k8s.io/");
    return !informer && !simulator && !path.contains("/configmaps") && !path.contains("/leases");
  }

  /** Runs the event once; the recording of it goes to {@code jfr}. */
  static void run(Path playbooks, Path work, Path jfr) throws Exception {
    try (MockApiServer api = MockApiServer.fleet()) {
      KubernetesClient client = api.client();
      Path config = work.resolve("multi-node-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nleader_election: {enabled: false}\nsafety: " + Bench.WIDE_LIMITS + "\n" + Bench.LOAD_LIMITS
          + "kubernetes: {qps: " + QPS + ", burst: " + BURST + ", writes_in_flight: " + WRITES_IN_FLIGHT + "}\n" + MockApiServer.SELECTOR);
      RemediatorConfig loaded = ConfigLoader.load(config).config().orElseThrow();
      RemediatorConfig.Kubernetes k = loaded.kubernetes();
      try (RemediatorService service = new RemediatorService(loaded, api.serviceApi(work, k.qps(), k.burst(),
          k.writesInFlight()), Clock.systemUTC())) {
        int port = Bench.awaitReady(service.start());
        // The budget is full again once the service has been idle for burst / qps seconds.
        Thread.sleep(1000L * BURST / QPS + 200);
        String body = Payloads.xidStorm(NODES, "2026-11-26T12:00:00Z");
        jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        recording.start();
        int before = api.requestLog().size();
        double ms = Bench.post(port, body, "\"applied\":" + NODES);
        List<String> log = api.requestLog();
        recording.stop();
        recording.dump(jfr);
        recording.close();
        if (log.size() >= LOGGED) {
          throw new IllegalStateException("the API server's request log overflowed: the requests cannot be counted");
        }
        List<String> during = log.subList(before, log.size());
        long budgeted = during.stream().filter(MultiNodeEvent::budgeted).count();
        int tainted = 0;
        for (int i = 0; i < NODES; i++) {
          Node n = client.nodes().withName(MockApiServer.nodeName(i)).get();
          tainted += Bench.tainted(n) && Boolean.TRUE.equals(n.getSpec().getUnschedulable()) ? 1 : 0;
        }
        if (tainted != NODES) {
          throw new IllegalStateException("the webhook answered, but only " + tainted + " of " + NODES + " nodes are quarantined");
        }
        double seconds = ms / 1000;
        double allowed = BURST + QPS * seconds;
        System.out.printf(Locale.ROOT, "one webhook of %d alerts on %d distinct nodes (qps %d, burst %d, %d writes in"
            + " flight): answered in %.2f s, every node tainted and cordoned: %.0f nodes/s%n", NODES, NODES, QPS, BURST,
            WRITES_IN_FLIGHT, seconds, NODES / seconds);
        System.out.printf(Locale.ROOT, "API requests while answering: %d through the budget (%.1f a node: the quarantines"
            + " first, then the loop's drains and the Events in what is left), %d outside it (watches, the fleet state's"
            + " ConfigMap, the Lease, the simulator's own controllers); the budget allowed %.0f in that time"
            + " (burst + qps x seconds): %.0f%% used;"
            + " target >= 90%% -> %s%n", budgeted, (double) budgeted / NODES, during.size() - budgeted, allowed,
            100 * budgeted / allowed, budgeted >= 0.9 * allowed ? "MET" : "NOT MET");
        Map<String, Long> kinds = new TreeMap<>();
        during.forEach(r -> kinds.merge(kind(r), 1L, Long::sum));
        System.out.println("  by kind: " + kinds);
        System.out.printf(Locale.ROOT, "answered in %.2f s; target within Alertmanager's shortest deadline (%.0f s) -> %s%n",
            seconds, ALERTMANAGER_DEADLINE_SECONDS, seconds < ALERTMANAGER_DEADLINE_SECONDS ? "MET" : "NOT MET");
      }
    }
  }
}
