package io.gpuremediator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuremediator.pipeline.Layout;
import io.gpuremediator.pipeline.Options;
import io.gpuremediator.pipeline.Pipeline;
import io.gpuremediator.pipeline.PipelineEvents;
import io.gpuremediator.pipeline.Poll;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fault to quarantine on the demo's whole loop (simulator, Prometheus with the rules, Alertmanager with
 * the routes, the remediator jar, the simulated cluster): XID 79 injected on one node per second; each
 * is timed from the simulator's change to the taint arriving on a watch of the API server, hop by hop.
 * The hops are read from each component's own record: the first sample Prometheus scraped with the
 * fault, the first evaluation that wrote the alert firing ({@code ALERTS}), the time Alertmanager
 * received it ({@code updatedAt}: Prometheus re-sends a firing alert only after a minute), the time the
 * webhook reached the remediator (through the pipeline's verbose tee, which forwards it unchanged), and
 * the taint seen on a watch.
 */
final class FaultToQuarantine {
  private static final int FAULTS = 8;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> HOPS = List.of("fault -> scrape", "scrape -> rule firing", "rule firing -> Alertmanager",
      "Alertmanager -> webhook", "webhook -> node written");

  private FaultToQuarantine() {}

  /** When each hop of one fault happened (epoch milliseconds); 0 where a component did not say. */
  private record Trace(long fault, long scrape, long firing, long alertmanager, long webhook, long node) {
    long[] points() {
      return new long[] {fault, scrape, firing, alertmanager, webhook, node};
    }
  }

  static void run(Path root, Path work) throws Exception {
    Map<String, Long> webhookArrived = new ConcurrentHashMap<>();
    PipelineEvents events = new PipelineEvents() {
      @Override
      public void started(String name, long pid, String address, Duration took) {}

      @Override
      public void webhook(String body, String answer) {}

      @Override
      public void webhookArrived(Instant at, String rawBody) {
        try {
          for (JsonNode a : JSON.readTree(rawBody).path("alerts")) {
            webhookArrived.putIfAbsent(a.path("labels").path("node").asText(), at.toEpochMilli());
          }
        } catch (IOException e) {
          // Not JSON: the remediator answers it with a 400, and this fault shows no webhook hop.
        }
      }
    };
    // The demo's pipeline and timers (with the tee, to time the webhook's arrival); limits wide, so that every
    // fault is acted on (this measures the path, not the limits).
    Options options = Options.demo(true).withSafety(Bench.WIDE_LIMITS);
    try (Pipeline p = Pipeline.start(new Layout(root, work.resolve("pipeline")), options, events)) {
      String query = p.prometheusUrl() + "/api/v1/query?query="
          + URLEncoder.encode("count(node:dcgm_gpus:count == 8)", StandardCharsets.UTF_8);
      Poll.until("Prometheus sees every GPU", Duration.ofSeconds(60), Duration.ofMillis(100), () -> {
        var result = p.http().get(query, null).path("data").path("result");
        return result.size() == 1 && result.get(0).path("value").get(1).asInt() == options.gpuNodes() ? Optional.of(true) : Optional.empty();
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
            tainted.putIfAbsent(n.getMetadata().getName(), System.currentTimeMillis());
          }
        }
      });
      try {
        // One unmeasured fault first: the remediator's first quarantine runs cold code.
        inject(p, "gpu-node-0", tainted);
        report("at 1 s intervals", measure(p, tainted, webhookArrived, 1, null));
        // Faults 1 s apart all land at the same phase of the 1 s scrape/evaluation/group cycle; a seeded random
        // offset of up to 1 s each spreads them over every phase.
        report("at 1 s intervals plus a random 0-1 s offset each",
            measure(p, tainted, webhookArrived, 1 + FAULTS, new Random(42)));
      } finally {
        watch.close();
      }
    }
  }

  private static List<Trace> measure(Pipeline p, Map<String, Long> tainted, Map<String, Long> webhookArrived, int firstNode,
      Random jitter) throws Exception {
    Map<String, Long> injected = new LinkedHashMap<>();
    long due = System.nanoTime();
    for (int i = 0; i < FAULTS; i++) {
      while (System.nanoTime() < due) {
        Thread.sleep(Math.max(1, (due - System.nanoTime()) / 1_000_000));
      }
      String node = "gpu-node-" + (firstNode + i);
      long at = System.currentTimeMillis();
      p.simulator().inject(node, 5, "xid", "79");
      injected.put(node, at);
      due += 1_000_000_000L + (jitter == null ? 0 : jitter.nextInt(1000) * 1_000_000L);
    }
    Poll.until("every fault quarantined", Duration.ofSeconds(60), Duration.ofMillis(20),
        () -> injected.keySet().stream().allMatch(tainted::containsKey) ? Optional.of(true) : Optional.empty());
    Map<String, Long> receivedByAlertmanager = alertmanagerReceipts(p);
    List<Trace> traces = new ArrayList<>();
    for (Map.Entry<String, Long> e : injected.entrySet()) {
      String node = e.getKey();
      traces.add(new Trace(e.getValue(),
          firstSample(p, "DCGM_FI_DEV_XID_ERRORS{node=\"" + node + "\",err_code=\"79\"}"),
          firstSample(p, "ALERTS{alertname=\"GpuXidHardwareError\",alertstate=\"firing\",node=\"" + node + "\"}"),
          receivedByAlertmanager.getOrDefault(node, 0L), webhookArrived.getOrDefault(node, 0L), tainted.get(node)));
    }
    return traces;
  }

  /** The timestamp of the first sample of a series in the last two minutes, or 0. */
  private static long firstSample(Pipeline p, String series) throws Exception {
    JsonNode result = p.http().get(p.prometheusUrl() + "/api/v1/query?query=" + URLEncoder.encode(series + "[2m]", StandardCharsets.UTF_8),
        null).path("data").path("result");
    long first = 0;
    for (JsonNode r : result) {
      long t = Math.round(r.path("values").get(0).get(0).asDouble() * 1000);
      first = first == 0 ? t : Math.min(first, t);
    }
    return first;
  }

  private static Map<String, Long> alertmanagerReceipts(Pipeline p) throws Exception {
    Map<String, Long> out = new HashMap<>();
    String filter = URLEncoder.encode("alertname=\"GpuXidHardwareError\"", StandardCharsets.UTF_8);
    for (JsonNode a : p.http().get(p.alertmanagerUrl() + "/api/v2/alerts?filter=" + filter, null)) {
      out.put(a.path("labels").path("node").asText(), Instant.parse(a.path("updatedAt").asText()).toEpochMilli());
    }
    return out;
  }

  private static void report(String how, List<Trace> traces) {
    List<Double> totals = new ArrayList<>();
    traces.forEach(t -> totals.add((t.node() - t.fault()) / 1e3));
    List<Double> sorted = new ArrayList<>(totals);
    Collections.sort(sorted);
    double median = (sorted.get((FAULTS - 1) / 2) + sorted.get(FAULTS / 2)) / 2;
    double worst = sorted.get(FAULTS - 1);
    System.out.printf(Locale.ROOT, "%d faults %s: median %.2f s, worst %.2f s, best %.2f s (all: %s); target median < 5 s"
        + " and worst < 8 s -> %s%n", FAULTS, how, median, worst, sorted.get(0),
        totals.stream().map(s -> String.format(Locale.ROOT, "%.2f", s)).toList(), median < 5 && worst < 8 ? "MET" : "NOT MET");
    for (int hop = 0; hop < HOPS.size(); hop++) {
      List<Double> took = new ArrayList<>();
      for (Trace t : traces) {
        long[] points = t.points();
        if (points[hop] > 0 && points[hop + 1] > 0) {
          took.add((points[hop + 1] - points[hop]) / 1e3);
        }
      }
      if (took.isEmpty()) {
        System.out.printf(Locale.ROOT, "  %-28s not recorded%n", HOPS.get(hop));
        continue;
      }
      List<Double> ordered = new ArrayList<>(took);
      Collections.sort(ordered);
      System.out.printf(Locale.ROOT, "  %-28s median %5.2f s, worst %5.2f s  %s%s%n", HOPS.get(hop), ordered.get(ordered.size() / 2),
          ordered.get(ordered.size() - 1), took.stream().map(s -> String.format(Locale.ROOT, "%.2f", s)).toList(),
          took.size() < traces.size() ? " (" + (traces.size() - took.size()) + " not recorded)" : "");
    }
  }

  private static void inject(Pipeline p, String node, Map<String, Long> tainted) throws Exception {
    p.simulator().inject(node, 5, "xid", "79");
    Poll.until(node + " quarantined", Duration.ofSeconds(60), Duration.ofMillis(20),
        () -> tainted.containsKey(node) ? Optional.of(true) : Optional.empty());
  }
}
