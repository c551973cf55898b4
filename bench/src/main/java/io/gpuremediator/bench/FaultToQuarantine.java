package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuremediator.pipeline.Layout;
import io.gpuremediator.pipeline.Options;
import io.gpuremediator.pipeline.Pipeline;
import io.gpuremediator.pipeline.PipelineEvents;
import io.gpuremediator.pipeline.Poll;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fault to quarantine on the demo's whole loop (simulator, Prometheus with the rules, Alertmanager with
 * the routes, the remediator jar, the simulated cluster): XID 79 injected on one node per second; each
 * is timed from the simulator's change to the taint arriving on a watch of the API server.
 */
final class FaultToQuarantine {
  private static final int FAULTS = 8;

  private FaultToQuarantine() {}

  static void run(Path root, Path work) throws Exception {
    PipelineEvents quiet = new PipelineEvents() {
      @Override
      public void started(String name, long pid, String address, Duration took) {}

      @Override
      public void webhook(String body, String answer) {}
    };
    // The demo's pipeline and timers; limits wide, so that every fault is acted on (this measures the path, not the limits).
    try (Pipeline p = Pipeline.start(new Layout(root, work.resolve("pipeline")), Options.demo(false).withSafety(Bench.WIDE_LIMITS), quiet)) {
      int gpuNodes = Options.demo(false).gpuNodes();
      String query = p.prometheusUrl() + "/api/v1/query?query="
          + URLEncoder.encode("count(node:dcgm_gpus:count == 8)", StandardCharsets.UTF_8);
      Poll.until("Prometheus sees every GPU", Duration.ofSeconds(60), Duration.ofMillis(100), () -> {
        var result = p.http().get(query, null).path("data").path("result");
        return result.size() == 1 && result.get(0).path("value").get(1).asInt() == gpuNodes ? Optional.of(true) : Optional.empty();
      });
      Map<String, Long> tainted = new ConcurrentHashMap<>();
      SharedIndexInformer<Node> watch = p.kube().nodes().inform(new ResourceEventHandler<>() {
        @Override
        public void onAdd(Node n) {
          seen(n);
        }

        @Override
        public void onUpdate(Node before, Node n) {
          seen(n);
        }

        @Override
        public void onDelete(Node n, boolean unknown) {}

        private void seen(Node n) {
          if (Bench.tainted(n)) {
            tainted.putIfAbsent(n.getMetadata().getName(), System.nanoTime());
          }
        }
      });
      try {
        // One unmeasured fault first: the remediator's first quarantine runs cold code.
        inject(p, "gpu-node-0", tainted);
        report("at 1 s intervals", measure(p, tainted, 1, null));
        // Faults 1 s apart all land at the same phase of the 1 s scrape/evaluation/group cycle; a seeded random
        // offset of up to 1 s each spreads them over every phase.
        report("at 1 s intervals plus a random 0-1 s offset each", measure(p, tainted, 1 + FAULTS, new java.util.Random(42)));
      } finally {
        watch.close();
      }
    }
  }

  private static List<Double> measure(Pipeline p, Map<String, Long> tainted, int firstNode, java.util.Random jitter) throws Exception {
    Map<String, Long> injected = new ConcurrentHashMap<>();
    long due = System.nanoTime();
    for (int i = 0; i < FAULTS; i++) {
      while (System.nanoTime() < due) {
        Thread.sleep(Math.max(1, (due - System.nanoTime()) / 1_000_000));
      }
      String node = "gpu-node-" + (firstNode + i);
      injected.put(node, System.nanoTime());
      p.simulator().inject(node, 5, "xid", "79");
      due += 1_000_000_000L + (jitter == null ? 0 : jitter.nextInt(1000) * 1_000_000L);
    }
    Poll.until("every fault quarantined", Duration.ofSeconds(60), Duration.ofMillis(20),
        () -> injected.keySet().stream().allMatch(tainted::containsKey) ? Optional.of(true) : Optional.empty());
    List<Double> seconds = new ArrayList<>();
    injected.forEach((node, t) -> seconds.add((tainted.get(node) - t) / 1e9));
    Collections.sort(seconds);
    return seconds;
  }

  private static void report(String how, List<Double> seconds) {
    double median = (seconds.get((FAULTS - 1) / 2) + seconds.get(FAULTS / 2)) / 2;
    double worst = seconds.get(FAULTS - 1);
    System.out.printf(Locale.ROOT, "%d faults %s: median %.2f s, worst %.2f s, best %.2f s (all: %s); target < 5 s -> %s%n",
        FAULTS, how, median, worst, seconds.get(0), seconds.stream().map(s -> String.format(Locale.ROOT, "%.2f", s)).toList(),
        worst < 5 ? "MET" : "NOT MET");
  }

  private static void inject(Pipeline p, String node, Map<String, Long> tainted) throws Exception {
    p.simulator().inject(node, 5, "xid", "79");
    Poll.until(node + " quarantined", Duration.ofSeconds(60), Duration.ofMillis(20),
        () -> tainted.containsKey(node) ? Optional.of(true) : Optional.empty());
  }
}
