package io.gpuremediator.bench;

import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.service.RemediatorService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * One webhook of {@value #ALERTS} alerts naming {@value #ALERTS} nodes the watch cache does not hold (the watch filtered
 * by a one-selector node_selector, as deployed; none of the nodes exists), the service in this JVM at the default API
 * budget: its answer time, against 2 s and against the same body's parse time on the bare parsing endpoint, each round
 * naming nodes no round named before (no finding of an earlier read helps it).
 */
final class UnknownNodes {
  static final int ALERTS = 1000;
  private static final int WARMUP = 30;
  private static final int ROUNDS = 15;

  private UnknownNodes() {}

  static void run(Path playbooks, Path work) throws Exception {
    try (MockApiServer api = MockApiServer.fleet()) {
      Path config = work.resolve("unknown-nodes-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nleader_election: {enabled: false}\nnode_selector: ['nvidia.com/gpu.present=true']\n" + Bench.LOAD_LIMITS);
      RemediatorConfig loaded = ConfigLoader.load(config).config().orElseThrow();
      RemediatorConfig.Kubernetes k = loaded.kubernetes();
      try (RemediatorService service = new RemediatorService(loaded, api.serviceApi(work, k.qps(), k.burst(),
          k.writesInFlight()), Clock.systemUTC())) {
        int port = Bench.awaitReady(service.start());
        int bare = ThroughputServer.bare();
        List<Double> parse = new ArrayList<>();
        List<Double> answer = new ArrayList<>();
        for (int round = 0; round < WARMUP + ROUNDS; round++) {
          String body = Payloads.xidStorm(100_000 * (round + 1), ALERTS, "2026-11-26T12:00:00Z");
          double p = Bench.post(bare, body, "\"alerts\":" + ALERTS);
          double a = Bench.post(port, body, "\"ignored\":" + ALERTS);
          if (round >= WARMUP) {
            parse.add(p);
            answer.add(a);
          }
        }
        Collections.sort(parse);
        Collections.sort(answer);
        double parse50 = parse.get(parse.size() / 2);
        double answer50 = answer.get(answer.size() / 2);
        double worst = answer.get(answer.size() - 1);
        System.out.printf(Locale.ROOT, "one webhook of %d alerts (%,d bytes) naming %d nodes the cache lacks (qps %d, burst"
            + " %d, the defaults), %d rounds after %d: answered p50 %.0f ms, max %.0f ms; target < 2 s -> %s%n", ALERTS,
            Payloads.xidStorm(100_000, ALERTS, "2026-11-26T12:00:00Z").length(), ALERTS, k.qps(), k.burst(), ROUNDS, WARMUP,
            answer50, worst, worst < 2000 ? "MET" : "NOT MET");
        System.out.printf(Locale.ROOT, "the same bodies parsed by the bare endpoint: p50 %.0f ms; answered in %.1fx that"
            + " (no read of an unknown node on the answer's path: it grows with the body, not with the nodes it names)%n",
            parse50, answer50 / parse50);
      }
    }
  }
}
