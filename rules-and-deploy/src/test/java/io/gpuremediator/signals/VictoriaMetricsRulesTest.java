package io.gpuremediator.signals;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuremediator.pipeline.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped rules under vmalert over VictoriaMetrics, held to promtool's expectations: every test of
 * rules/tests/*_test.yml has its input series written into one VictoriaMetrics (each test on a timeline of its own,
 * ten days from the next, so that no rule's lookback reaches another test's series), vmalert replays the test's
 * rules over them at the file's {@code evaluation_interval}, and the alerts it wrote as firing ({@code ALERTS}) and the
 * expressions' samples at each evaluation time must be what promtool expects. A replay evaluates a rule over the
 * whole range before the next; {@link ReplayOrder} makes it evaluate as a running vmalert does. Annotations are
 * promtool's to check: a replay writes none.
 */
class VictoriaMetricsRulesTest {
  private static final Path TESTS = Path.of("../rules/tests");
  private static final Duration APART = Duration.ofDays(10);
  private static final int REPLAYS_AT_ONCE = 4;
  @TempDir Path dir;

  /** A test of a file, placed on its own timeline starting at {@code base} (seconds). */
  private record Placed(PromtoolTests file, PromtoolTests.Case test, long base) {
    String name() {
      return file.file().getFileName() + " / " + test.name();
    }
  }

  @Test
  void vmalertOverVictoriaMetricsFiresWhatPromtoolExpectsForEveryTestOfTheRules() throws Exception {
    List<Placed> placed = new ArrayList<>();
    for (PromtoolTests file : PromtoolTests.readAll(TESTS)) {
      for (PromtoolTests.Case test : file.cases()) {
        placed.add(new Placed(file, test, 0));
      }
    }
    long first = Instant.now().minus(APART.multipliedBy(placed.size() + 1L)).truncatedTo(ChronoUnit.DAYS).getEpochSecond();
    for (int i = 0; i < placed.size(); i++) {
      Placed p = placed.get(i);
      placed.set(i, new Placed(p.file(), p.test(), first + i * APART.toSeconds()));
    }
    List<String> differences = new ArrayList<>();
    try (Processes processes = new Processes(dir.resolve("pids"), dir); VictoriaMetrics vm = new VictoriaMetrics(processes, dir)) {
      List<RemoteWrite.Series> series = new ArrayList<>();
      for (Placed p : placed) {
        series.addAll(inputs(p));
      }
      vm.write(series);
      ExecutorService replays = Executors.newFixedThreadPool(REPLAYS_AT_ONCE);
      try {
        List<Future<List<String>>> results = new ArrayList<>();
        for (Placed p : placed) {
          results.add(replays.submit(() -> replayAndCompare(vm, p)));
        }
        for (Future<List<String>> r : results) {
          differences.addAll(r.get());
        }
      } finally {
        replays.shutdownNow();
      }
    }
    assertThat(differences).as("where vmalert over VictoriaMetrics differs from promtool's expectations (%d tests)",
        placed.size()).isEmpty();
  }

  private static List<RemoteWrite.Series> inputs(Placed p) {
    List<RemoteWrite.Series> out = new ArrayList<>();
    for (PromtoolTests.Input in : p.test().series()) {
      List<Long> times = new ArrayList<>();
      List<Double> values = new ArrayList<>();
      for (int i = 0; i < in.values().size(); i++) {
        if (in.values().get(i) != PromtoolTests.MISSING) {
          times.add((p.base() + i * p.test().interval().toSeconds()) * 1000);
          // A value that is a time (a metric named *_timestamp_seconds) moves with the test's timeline.
          boolean time = in.labels().getOrDefault("__name__", "").endsWith("_timestamp_seconds") && !Double.isNaN(in.values().get(i));
          values.add(time ? in.values().get(i) + p.base() : in.values().get(i));
        }
      }
      out.add(new RemoteWrite.Series(in.labels(), times, values));
    }
    return out;
  }

  private List<String> replayAndCompare(VictoriaMetrics vm, Placed p) throws Exception {
    Duration step = p.file().evaluationInterval();
    long to = p.base() + p.test().end().toSeconds() + step.toSeconds();
    for (ReplayOrder.Unit unit : ReplayOrder.units(p.file().ruleFiles())) {
      Path rules = Files.createTempFile(dir, "rule-", ".yml");
      // promtool evaluates every group at the test's interval, whatever the group's own (1 to 5 minutes): so does the replay.
      Map<String, Object> group = new LinkedHashMap<>(unit.group());
      group.put("interval", step.toSeconds() + "s");
      new ReplayOrder.Unit(group, unit.readsItself()).write(rules);
      if (unit.readsItself()) {
        for (long t = p.base(); t <= to; t += step.toSeconds()) {
          Optional<String> failed = replay(vm, rules, t, t + 1, step);
          if (failed.isPresent()) {
            return List.of(p.name() + ": " + failed.get());
          }
        }
      } else {
        Optional<String> failed = replay(vm, rules, p.base(), to, step);
        if (failed.isPresent()) {
          return List.of(p.name() + ": " + failed.get());
        }
      }
    }
    deriveForState(vm, p, to, step);
    markEnds(vm, p, to, step);
    List<String> differences = new ArrayList<>();
    for (PromtoolTests.AlertCheck check : p.test().alerts()) {
      long at = p.base() + check.at().toSeconds();
      List<Map<String, String>> firing = new ArrayList<>();
      for (JsonNode s : vm.export("ALERTS{alertname=\"" + check.alertname() + "\",alertstate=\"firing\"}", at, at)) {
        for (int i = 0; i < s.path("timestamps").size(); i++) {
          // A staleness marker at that time is the alert's end, not the alert.
          if (s.path("timestamps").get(i).asLong() == at * 1000 && s.path("values").get(i).asDouble() == 1) {
            firing.add(PromtoolTests.alertLabels(labels(s.path("metric")), List.of("alertgroup")));
          }
        }
      }
      if (!sameElements(firing, check.expected())) {
        differences.add(p.name() + ": " + check.alertname() + " at " + check.at() + ": firing " + firing + ", promtool expects "
            + check.expected());
      }
    }
    for (PromtoolTests.ExprCheck check : p.test().exprs()) {
      List<PromtoolTests.Sample> got = new ArrayList<>();
      for (JsonNode r : vm.query(check.expr(), p.base() + check.at().toSeconds(), step)) {
        Map<String, String> labels = labels(r.path("metric"));
        labels.remove("alertgroup");
        double value = r.path("value").path(1).asDouble();
        // An ALERTS_FOR_STATE value is a time: promtool's clock starts at 0, this test's at its base.
        got.add(new PromtoolTests.Sample(labels, "ALERTS_FOR_STATE".equals(labels.get("__name__")) ? value - p.base() : value));
      }
      if (!sameElements(got, check.expected())) {
        differences.add(p.name() + ": " + check.expr() + " at " + check.at() + ": " + got + ", promtool expects " + check.expected());
      }
    }
    if (!differences.isEmpty()) {
      differences.add(p.name() + ": what the rules wrote (minute=value): " + written(vm, p, to));
    }
    return differences;
  }

  /**
   * vmalert's replay of one rule file between two times (seconds), one evaluation each {@code step}; what it wrote is
   * searchable when it exits (its remote write is flushed at exit, through {@link VictoriaMetrics#writeUrl()}).
   * Empty when it succeeded, else what went wrong.
   */
  private Optional<String> replay(VictoriaMetrics vm, Path rules, long from, long to, Duration step) throws Exception {
    Path log = Files.createTempFile(dir, "vmalert-", ".log");
    Process vmalert = new ProcessBuilder("vmalert", "-rule=" + rules, "-datasource.url=" + vm.url(), "-remoteWrite.url=" + vm.writeUrl(),
        "-replay.timeFrom=" + Instant.ofEpochSecond(from), "-replay.timeTo=" + Instant.ofEpochSecond(to),
        "-datasource.queryStep=" + step.toSeconds() + "s", "-replay.maxDatapointsPerQuery=10000", "-replay.rulesDelay=0s",
        "-replay.disableProgressBar", "-loggerLevel=WARN").redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!vmalert.waitFor(2, TimeUnit.MINUTES)) {
      vmalert.destroyForcibly();
      return Optional.of("vmalert's replay of " + Files.readString(rules) + " did not end within 2 minutes; its log: " + Files.readString(log));
    }
    if (vmalert.exitValue() != 0) {
      return Optional.of("vmalert's replay of " + Files.readString(rules) + " exited " + vmalert.exitValue() + ": " + Files.readString(log));
    }
    return Optional.empty();
  }

  /**
   * Prometheus writes ALERTS_FOR_STATE (the time an alert became active) for every alert, vmalert only for alerts with a
   * {@code for}: for the others it is derived from vmalert's ALERTS, each unbroken run of evaluations an alert was
   * pending or firing being one activation.
   */
  private static void deriveForState(VictoriaMetrics vm, Placed p, long to, Duration step) throws Exception {
    Map<Map<String, String>, TreeSet<Long>> active = new TreeMap<>(Shards::compare);
    for (JsonNode s : vm.export("ALERTS", p.base(), to)) {
      Map<String, String> labels = labels(s.path("metric"));
      labels.remove("alertstate");
      labels.put("__name__", "ALERTS_FOR_STATE");
      TreeSet<Long> times = active.computeIfAbsent(labels, k -> new TreeSet<>());
      s.path("timestamps").forEach(t -> times.add(t.asLong()));
    }
    for (JsonNode s : vm.export("ALERTS_FOR_STATE", p.base(), to)) {
      active.remove(labels(s.path("metric")));
    }
    List<RemoteWrite.Series> derived = new ArrayList<>();
    active.forEach((labels, times) -> {
      List<Long> at = new ArrayList<>(times);
      List<Double> since = new ArrayList<>();
      long start = at.get(0);
      for (int i = 0; i < at.size(); i++) {
        if (i > 0 && at.get(i) - at.get(i - 1) > step.toMillis()) {
          start = at.get(i);
        }
        since.add(start / 1000.0);
      }
      derived.add(new RemoteWrite.Series(labels, at, since));
    });
    if (!derived.isEmpty()) {
      vm.write(derived);
    }
  }

  /**
   * Prometheus's rule manager writes a staleness marker at the evaluation after a rule's series ends, so a query at
   * that time no longer sees it; vmalert's replay writes none. Before the expressions are checked, the markers are
   * written where Prometheus would (rules read each other's records without them, as vmalert's replay left them).
   */
  private static void markEnds(VictoriaMetrics vm, Placed p, long to, Duration step) throws Exception {
    List<RemoteWrite.Series> markers = new ArrayList<>();
    for (JsonNode s : vm.export("{__name__=~\"ALERTS.*|.+:.+\"}", p.base(), to)) {
      TreeSet<Long> times = new TreeSet<>();
      s.path("timestamps").forEach(t -> times.add(t.asLong()));
      List<Long> at = new ArrayList<>();
      for (long t : times) {
        long next = t + step.toMillis();
        if (!times.contains(next) && next <= to * 1000) {
          at.add(next);
        }
      }
      if (!at.isEmpty()) {
        markers.add(new RemoteWrite.Series(labels(s.path("metric")), at, at.stream().map(t -> PromtoolTests.STALE).toList()));
      }
    }
    if (!markers.isEmpty()) {
      vm.write(markers);
    }
  }

  /** Every record and alert series of the test's timeline, as minute=value pairs. */
  private static String written(VictoriaMetrics vm, Placed p, long to) throws Exception {
    StringBuilder out = new StringBuilder();
    for (JsonNode s : vm.export("{__name__=~\"ALERTS.*|.+:.+\"}", p.base(), to)) {
      Map<String, String> labels = labels(s.path("metric"));
      labels.remove("alertgroup");
      out.append("\n  ").append(labels).append(":");
      for (int i = 0; i < s.path("timestamps").size(); i++) {
        out.append(' ').append((s.path("timestamps").get(i).asLong() / 1000 - p.base()) / 60).append('=')
            .append(s.path("values").get(i).asText());
      }
    }
    return out.toString();
  }

  private static Map<String, String> labels(JsonNode metric) {
    Map<String, String> out = new TreeMap<>();
    metric.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  private static <T> boolean sameElements(List<T> a, List<T> b) {
    List<T> left = new ArrayList<>(a);
    for (T x : b) {
      if (!left.remove(x)) {
        return false;
      }
    }
    return left.isEmpty();
  }
}
