package io.gpuremediator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.gpuremediator.pipeline.Dirs;
import io.gpuremediator.pipeline.Http;
import io.gpuremediator.pipeline.Poll;
import io.gpuremediator.pipeline.Ports;
import io.gpuremediator.pipeline.Processes;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.yaml.snakeyaml.Yaml;

/**
 * What the shipped rules cost Prometheus on a 1,000-node fleet: two hours of every series they read
 * (8 GPUs and 144 NVLink links a node) backfilled with {@code promtool tsdb create-blocks-from openmetrics},
 * then a real Prometheus with {@code rules/*.rules.yml} scraping the same fleet live at 30 s and evaluating
 * at 30 s. The figures are Prometheus' own: each group's {@code evaluationTime} from {@code /api/v1/rules}, summed
 * over the groups for each evaluation cycle; the target is judged on the median cycle, and the worst is printed
 * beside it (a single group's evaluation now and then takes 2-3 times its usual, on two cores that also take
 * 1,000 scrapes every 30 s). A group that runs less often (every 1 to 5 minutes) is counted in each cycle by its
 * share (its median evaluation times 30 s over its interval), from its own evaluations over the same minutes; an
 * hourly group, which runs too seldom to be seen, by its rules' time as instant queries.
 * The opt-in rules ({@code rules/opt-in/}) are loaded afterwards, measured alone and reported apart, outside the total.
 *
 * <p>Measured in the steady state of a Prometheus that has run for a while: once the 10-minute ranges the rules
 * read lie wholly in the live head, past the backfilled blocks (as they do in production, where the head holds
 * the last hours). Until then every such range is read from two sources and merged.
 */
final class RuleCost {
  private static final long STEP_SECONDS = 30;
  private static final long HISTORY_SECONDS = 2 * 3600;
  private static final long BLOCK_SECONDS = 2 * 3600;
  private static final long DAY_SECONDS = 24 * 3600;
  private static final long HOUR_SECONDS = 3600;
  private static final int MEASURED = 5;
  /** The longest range most rules read (increase over 10 m, XID codes held 10 m). */
  private static final long STEADY_AFTER_SECONDS = 600;
  private static final double TARGET_SECONDS = 1.0;
  /** Groups that run at most this seldom are measured by their own evaluations; the hourly ones by instant queries. */
  private static final long LIVE_SECONDS = 300;

  private RuleCost() {}

  static void run(Path root, Path work, int nodes) throws Exception {
    Path dir = work.resolve("rule-cost").toAbsolutePath();
    Dirs.deleteRecursively(dir);
    Path data = Files.createDirectories(dir.resolve("prometheus"));
    SyntheticFleet fleet = new SyntheticFleet(nodes);
    long end = Instant.now().getEpochSecond() / STEP_SECONDS * STEP_SECONDS;
    backfill(fleet, dir, data, end - HISTORY_SECONDS, end);

    // One target per node, as in a cluster: Prometheus spreads their scrapes over the interval.
    List<List<List<SyntheticFleet.Series>>> perNode = fleet.byNode(fleet.raw(false));
    HttpServer exporter = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    ExecutorService scrapes = Executors.newFixedThreadPool(2);
    exporter.setExecutor(scrapes);
    exporter.createContext("/metrics/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      int node = Integer.parseInt(path.substring(path.lastIndexOf('-') + 1));
      ByteArrayOutputStream body = new ByteArrayOutputStream(64 << 10);
      try (Writer w = new BufferedWriter(new OutputStreamWriter(body, StandardCharsets.UTF_8), 1 << 16)) {
        SyntheticFleet.exposition(perNode.get(node), Instant.now().getEpochSecond(), w);
      }
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
      exchange.sendResponseHeaders(200, body.size());
      try (var out = exchange.getResponseBody()) {
        body.writeTo(out);
      }
    });
    exporter.start();
    int promPort = Ports.free();
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, config(root, nodes, exporter.getAddress().getPort(), promPort, false));
    Http http = new Http();
    String prom = "http://127.0.0.1:" + promPort;
    try (Processes processes = new Processes(dir.resolve("pids"), dir)) {
      Process prometheus = processes.start("prometheus", List.of("prometheus", "--config.file=" + config, "--storage.tsdb.path=" + data,
          "--web.listen-address=127.0.0.1:" + promPort, "--web.enable-lifecycle"), dir.resolve("prometheus.log")).process();
      boolean ready = Poll.until("Prometheus ready (see " + dir.resolve("prometheus.log") + ")", Duration.ofSeconds(120),
          Duration.ofMillis(500), () -> !prometheus.isAlive() ? Optional.of(false)
              : http.status(prom + "/-/ready") == 200 ? Optional.of(true) : Optional.empty());
      if (!ready) {
        throw new IllegalStateException("Prometheus exited with " + prometheus.exitValue() + "; see " + dir.resolve("prometheus.log"));
      }
      Poll.until("a live scrape of every node", Duration.ofSeconds(120), Duration.ofSeconds(1),
          () -> scalar(http, prom, "count(up{job=\"fleet\"} == 1)").filter(v -> v == nodes));
      // Until the 10 m ranges have moved past the end of the backfill, they read each series from both the block
      // and the head and merge the two: not the steady state. Evaluations before then are not counted.
      Map<String, Group> groups = evaluations(http, prom, Instant.ofEpochSecond(end + STEADY_AFTER_SECONDS + STEP_SECONDS), false);
      // The opt-in rules, loaded only now: measured alone, they neither slow the shipped groups nor are slowed by them.
      Files.writeString(config, config(root, nodes, exporter.getAddress().getPort(), promPort, true));
      Instant reloaded = Instant.now();
      HttpResponse<String> reload = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(prom + "/-/reload"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      if (reload.statusCode() != 200) {
        throw new IllegalStateException("Prometheus refused the reload with the opt-in rules: " + reload.statusCode() + " " + reload.body());
      }
      groups.putAll(evaluations(http, prom, reloaded, true));
      report(http, prom, nodes, groups);
      System.out.println("machine speed at the end of the measurement (Prometheus still running), " + Calibration.line());
    } finally {
      exporter.stop(0);
      scrapes.shutdownNow();
    }
  }

  /**
   * Production intervals and rule files; one job scrapes the whole synthetic fleet (its series carry their
   * job, instance and node already: honor_labels) through the metric relabelling of the dcgm-exporter job
   * in {@code dcgm/prometheus.yml}, and one scrapes Prometheus itself.
   */
  @SuppressWarnings("unchecked")
  private static String config(Path root, int nodes, int exporterPort, int promPort, boolean optIn) throws IOException {
    Map<String, Object> production = new Yaml().load(Files.readString(root.resolve("dcgm/prometheus.yml")));
    Object relabel = ((List<Map<String, Object>>) production.get("scrape_configs")).stream()
        .filter(job -> "dcgm-exporter".equals(job.get("job_name"))).findFirst()
        .orElseThrow(() -> new IllegalStateException("dcgm/prometheus.yml has no dcgm-exporter job"))
        .getOrDefault("metric_relabel_configs", List.of());
    Map<String, Object> fleet = new LinkedHashMap<>();
    fleet.put("job_name", "fleet");
    fleet.put("honor_labels", true);
    List<Map<String, Object>> targets = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      targets.add(Map.of("targets", List.of("127.0.0.1:" + exporterPort), "labels",
          Map.of("instance", SyntheticFleet.node(n), "__metrics_path__", "/metrics/" + SyntheticFleet.node(n))));
    }
    fleet.put("static_configs", targets);
    fleet.put("metric_relabel_configs", relabel);
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("global", Map.of("scrape_interval", STEP_SECONDS + "s", "scrape_timeout", "25s", "evaluation_interval", STEP_SECONDS + "s"));
    List<String> rules = new ArrayList<>(List.of(root.toAbsolutePath().resolve("rules") + "/*.rules.yml"));
    if (optIn) {
      rules.add(root.toAbsolutePath().resolve("rules/opt-in") + "/*.rules.yml");
    }
    config.put("rule_files", rules);
    config.put("scrape_configs", List.of(fleet, Map.of("job_name", "prometheus",
        "static_configs", List.of(Map.of("targets", List.of("127.0.0.1:" + promPort))))));
    return new Yaml().dump(config);
  }

  /** One OpenMetrics input to promtool: these families every {@code step} seconds from {@code from} to {@code to}, both included. */
  private record Part(List<List<SyntheticFleet.Series>> families, long from, long to, long step) {}

  /**
   * Writes the history as OpenMetrics, one file per 2 h block, and lets promtool turn each into a block. The
   * day before the history holds the GPU capacity and its hourly record (which a rule reads over a day), so that
   * those ranges are as long as in production.
   */
  private static void backfill(SyntheticFleet fleet, Path dir, Path data, long from, long to) throws Exception {
    long started = System.nanoTime();
    List<List<SyntheticFleet.Series>> families = new ArrayList<>(fleet.raw(true));
    families.addAll(fleet.recorded());
    long series = families.stream().mapToLong(List::size).sum();
    // promtool reads its input once for the time range, then once per 2 h block it makes: one file per block, run side by side.
    List<Part> parts = new ArrayList<>();
    for (long t = from; t <= to; ) {
      long blockEnd = Math.min(to, (t / BLOCK_SECONDS + 1) * BLOCK_SECONDS - STEP_SECONDS);
      parts.add(new Part(families, t, blockEnd, STEP_SECONDS));
      t = blockEnd + STEP_SECONDS;
    }
    parts.add(new Part(List.of(fleet.capacity()), to - DAY_SECONDS, from - STEP_SECONDS, STEP_SECONDS));
    // The hourly group's record, as it would be after a day: what the expected GPU count reads over the day.
    parts.add(new Part(List.of(fleet.hourlyGpuCount()), (to - DAY_SECONDS) / HOUR_SECONDS * HOUR_SECONDS, to, HOUR_SECONDS));
    // The hourly InfiniBand records, as a week of the hourly group's runs left them.
    parts.add(new Part(List.of(fleet.hourlyInfiniband()), (to - 7 * DAY_SECONDS) / HOUR_SECONDS * HOUR_SECONDS, to,
        HOUR_SECONDS));
    List<Process> promtools = new ArrayList<>();
    List<Path> inputs = new ArrayList<>();
    for (Part part : parts) {
      Path om = dir.resolve("history-" + part.from() + ".om");
      try (Writer w = Files.newBufferedWriter(om, StandardCharsets.UTF_8)) {
        SyntheticFleet.openMetrics(part.families(), part.from(), part.to(), part.step(), w);
        w.write("# EOF\n");
      }
      inputs.add(om);
      promtools.add(new ProcessBuilder("promtool", "tsdb", "create-blocks-from", "openmetrics", "--quiet", om.toString(),
          data.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("promtool-" + part.from() + ".log").toFile()).start());
    }
    long written = System.nanoTime();
    long bytes = 0;
    for (int i = 0; i < promtools.size(); i++) {
      if (promtools.get(i).waitFor() != 0) {
        throw new IllegalStateException("promtool failed on " + inputs.get(i) + "; see " + dir.resolve("promtool-" + parts.get(i).from() + ".log"));
      }
      bytes += Files.size(inputs.get(i));
      Files.delete(inputs.get(i));
    }
    long samples = series * ((to - from) / STEP_SECONDS + 1);
    System.out.printf(Locale.ROOT, "history: %,d series x %d samples (2 h at %d s) = %,d samples, and the GPU capacity and its hourly record over the day before,"
        + " %.1f GB of OpenMetrics written in %.0f s,"
        + " promtool backfill done %.0f s later%n", series, (to - from) / STEP_SECONDS + 1, STEP_SECONDS, samples, bytes / 1e9,
        (written - started) / 1e9, (System.nanoTime() - written) / 1e9);
  }

  /**
   * One rule group's evaluations, in the order Prometheus made them; opt-in: from {@code rules/opt-in/}; interval in
   * seconds.
   */
  private record Group(int rules, boolean optIn, double interval, List<Double> seconds) {
    /** Whether it runs every cycle: its first evaluation is a warm-up, and each other one lies in a cycle of its own. */
    boolean everyCycle() {
      return interval <= STEP_SECONDS;
    }
  }

  /**
   * Polls {@code /api/v1/rules} until every group (of the opt-in rule files, or of the others) that runs every cycle
   * has one warm-up and {@link #MEASURED} measured evaluations from {@code steady} on, and every group that runs less
   * often (up to {@link #LIVE_SECONDS}) one evaluation at least (it has run before {@code steady}: no warm-up).
   */
  private static Map<String, Group> evaluations(Http http, String prom, Instant steady, boolean optIn) throws Exception {
    Map<String, Group> groups = new TreeMap<>();
    Map<String, String> lastSeen = new TreeMap<>();
    Duration deadline = Duration.between(Instant.now(), steady).plusSeconds(STEP_SECONDS * (MEASURED + 3) + LIVE_SECONDS);
    try {
      Poll.until("every rule group evaluated " + (MEASURED + 1) + " times (once, a group that runs less often)", deadline,
          Duration.ofSeconds(1), () -> {
            boolean allSeen = true;
            for (JsonNode g : http.get(prom + "/api/v1/rules", null).path("data").path("groups")) {
              String name = g.path("name").asText();
              String at = g.path("lastEvaluation").asText();
              double interval = g.path("interval").asDouble();
              if (interval > LIVE_SECONDS || g.path("file").asText().contains("/opt-in/") != optIn) {
                continue; // hourly: measured apart, by query, in the report
              }
              Group group = groups.computeIfAbsent(name, k -> new Group(g.path("rules").size(), optIn, interval, new ArrayList<>()));
              if (!at.startsWith("0001") && !at.equals(lastSeen.put(name, at)) && !Instant.parse(at).isBefore(steady)) {
                group.seconds().add(g.path("evaluationTime").asDouble());
              }
              allSeen &= group.seconds().size() > (group.everyCycle() ? MEASURED : 0);
            }
            return !groups.isEmpty() && allSeen ? Optional.of(true) : Optional.empty();
          });
    } catch (Poll.Timeout e) {
      throw new IllegalStateException(e.getMessage() + "; evaluations seen: " + groups, e);
    }
    return groups;
  }

  private static void report(Http http, String prom, int nodes, Map<String, Group> groups) throws Exception {
    System.out.printf(Locale.ROOT, "%d nodes x %d GPUs x %d links; head series %,.0f; slowest node scrape %.3f s;"
        + " missed rule group iterations %.0f%n", nodes, SyntheticFleet.GPUS, SyntheticFleet.LINKS,
        scalar(http, prom, "prometheus_tsdb_head_series").orElse(-1.0),
        scalar(http, prom, "max(scrape_duration_seconds{job=\"fleet\"})").orElse(-1.0),
        scalar(http, prom, "sum(prometheus_rule_group_iterations_missed_total)").orElse(-1.0));
    System.out.printf(Locale.ROOT, "%-22s %5s  %s%n", "group", "rules", "evaluation time (first one warm-up, not counted; median of "
        + MEASURED + ", max)");
    // Every group is evaluated once per interval: the i-th measured evaluation of each lies in the same 30 s cycle.
    double[] cycles = new double[MEASURED];
    double sumOfWorst = 0;
    String slowest = "";
    double slowestSeconds = 0;
    for (Map.Entry<String, Group> e : groups.entrySet()) {
      if (!e.getValue().everyCycle()) {
        continue;
      }
      List<Double> measured = new ArrayList<>(e.getValue().seconds().subList(1, MEASURED + 1));
      Collections.sort(measured);
      double median = measured.get(MEASURED / 2);
      double worst = measured.get(MEASURED - 1);
      if (!e.getValue().optIn()) {
        for (int i = 0; i < MEASURED; i++) {
          cycles[i] += e.getValue().seconds().get(i + 1);
        }
        sumOfWorst += worst;
        if (median > slowestSeconds) {
          slowest = e.getKey();
          slowestSeconds = median;
        }
      }
      System.out.printf(Locale.ROOT, "%-22s %5d  %7.1f ms  %7.1f ms  (warm-up %.1f ms)%s%n", e.getKey(), e.getValue().rules(),
          median * 1000, worst * 1000, e.getValue().seconds().get(0) * 1000,
          e.getValue().optIn() ? "  opt-in (rules/opt-in/): loaded afterwards, measured alone, not in the total" : "");
    }
    for (Map.Entry<String, Group> e : groups.entrySet()) {
      Group g = e.getValue();
      if (g.everyCycle() || g.optIn()) {
        continue;
      }
      List<Double> measured = new ArrayList<>(g.seconds());
      Collections.sort(measured);
      double median = measured.get(measured.size() / 2);
      double worst = measured.get(measured.size() - 1);
      double share = median * STEP_SECONDS / g.interval();
      for (int i = 0; i < MEASURED; i++) {
        cycles[i] += share;
      }
      sumOfWorst += worst * STEP_SECONDS / g.interval();
      if (median > slowestSeconds) {
        slowest = e.getKey();
        slowestSeconds = median;
      }
      System.out.printf(Locale.ROOT, "%-22s %5d  %7.1f ms  %7.1f ms  (evaluated every %.0f s: its own evaluations over the same minutes,"
          + " median %.1f ms of %d, max %.1f ms, counted as %.0f/%.0f of that)%n", e.getKey(), g.rules(), share * 1000,
          worst * STEP_SECONDS / g.interval() * 1000, g.interval(), median * 1000, measured.size(), worst * 1000,
          (double) STEP_SECONDS, g.interval());
    }
    for (JsonNode g : http.get(prom + "/api/v1/rules", null).path("data").path("groups")) {
      double interval = g.path("interval").asDouble();
      if (interval > LIVE_SECONDS && !g.path("file").asText().contains("/opt-in/")) {
        double seconds = 0;
        for (JsonNode r : g.path("rules")) {
          seconds += queryTime(http, prom, r.path("query").asText());
        }
        double share = seconds * STEP_SECONDS / interval;
        for (int i = 0; i < MEASURED; i++) {
          cycles[i] += share;
        }
        sumOfWorst += share;
        if (seconds > slowestSeconds) {
          slowest = g.path("name").asText();
          slowestSeconds = seconds;
        }
        System.out.printf(Locale.ROOT, "%-22s %5d  %7.1f ms  %7.1f ms  (evaluated every %.0f s, measured apart: its rules take"
            + " %.1f ms as instant queries, median of 5, counted as %.0f/%.0f of that)%n", g.path("name").asText(), g.path("rules").size(),
            share * 1000, share * 1000, interval, seconds * 1000, (double) STEP_SECONDS, interval);
      }
    }
    double[] sorted = cycles.clone();
    Arrays.sort(sorted);
    double median = sorted[MEASURED / 2];
    List<String> each = new ArrayList<>();
    for (double c : cycles) {
      each.add(String.format(Locale.ROOT, "%.0f", c * 1000));
    }
    System.out.printf(Locale.ROOT, "%-22s %5s  %7.1f ms  %7.1f ms  all groups in one evaluation cycle, median and worst of %d (each: %s ms);"
        + " target: median < %.0f s per evaluation -> %s (each group's worst summed across cycles: %.1f ms)%n", "total", "",
        median * 1000, sorted[MEASURED - 1] * 1000, MEASURED, String.join(", ", each), TARGET_SECONDS,
        median < TARGET_SECONDS ? "MET" : "NOT MET", sumOfWorst * 1000);
    // Prometheus runs each group on its own: a group slower than its interval misses iterations, whatever the sum.
    System.out.printf(Locale.ROOT, "%-22s %5s  %7.1f ms  the slowest group's own evaluation (%s, median; a group evaluated less often counted"
        + " whole; an hourly one as instant queries); target: every group < %.0f s -> %s%n", "slowest group", "", slowestSeconds * 1000, slowest, TARGET_SECONDS,
        slowestSeconds < TARGET_SECONDS ? "MET" : "NOT MET");
    List<String> rules = new ArrayList<>();
    for (JsonNode g : http.get(prom + "/api/v1/rules", null).path("data").path("groups")) {
      for (JsonNode r : g.path("rules")) {
        rules.add(String.format(Locale.ROOT, "%07.1f ms %s", r.path("evaluationTime").asDouble() * 1000, r.path("name").asText()));
      }
    }
    rules.sort(Comparator.reverseOrder());
    System.out.println("costliest rules, last evaluation: " + String.join(", ", rules.subList(0, Math.min(6, rules.size())))
        .replaceAll("(^|, )0+(?=\\d)", "$1"));
    double links = scalar(http, prom, "count(count_over_time(DCGM_FI_DEV_NVLINK_LINK_STATUS[3h]))").orElse(0.0);
    System.out.printf(Locale.ROOT, "NVLink link series over history and live scrape: %,.0f (%s)%n", links,
        links == nodes * SyntheticFleet.GPUS * SyntheticFleet.LINKS ? "one per link: the backfill holds them as the relabelled scrape stores them"
            : "NOT one per link: the backfilled labels differ from the relabelled scrape's");
    JsonNode alerts = http.get(prom + "/api/v1/query?query=" + URLEncoder.encode("count by (alertname, alertstate) (ALERTS)",
        StandardCharsets.UTF_8), null).path("data").path("result");
    List<String> found = new ArrayList<>();
    for (JsonNode a : alerts) {
      found.add(a.path("metric").path("alertname").asText() + " " + a.path("metric").path("alertstate").asText() + ": "
          + a.path("value").get(1).asText());
    }
    found.sort(Comparator.naturalOrder());
    System.out.println("alerts on the synthetic faults (XID 79, DBE, link down, NVLink health FAIL on 1% of nodes each): " + found);
  }

  /** The median of 5 executions of {@code query} now, as Prometheus times it ({@code stats=all}), in seconds. */
  private static double queryTime(Http http, String prom, String query) throws Exception {
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      JsonNode stats = http.get(prom + "/api/v1/query?stats=all&query=" + URLEncoder.encode(query, StandardCharsets.UTF_8), null)
          .path("data").path("stats").path("timings");
      if (stats.isMissingNode()) {
        throw new IllegalStateException("Prometheus gave no query timings for " + query);
      }
      times.add(stats.path("execTotalTime").asDouble());
    }
    Collections.sort(times);
    return times.get(2);
  }

  private static Optional<Double> scalar(Http http, String prom, String query) throws Exception {
    JsonNode result = http.get(prom + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8), null)
        .path("data").path("result");
    return result.size() == 1 ? Optional.of(result.get(0).path("value").get(1).asDouble()) : Optional.empty();
  }

}
