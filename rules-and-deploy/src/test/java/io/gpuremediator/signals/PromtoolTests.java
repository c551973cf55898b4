package io.gpuremediator.signals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/**
 * A promtool rule unit-test file (rules/tests/*_test.yml) read as data, so that other evaluators can be given the
 * same series and held to the same expectations: its rule files, and per test the input series expanded from
 * promtool's notation, the alerts expected firing and the expression samples expected at each evaluation time.
 */
record PromtoolTests(Path file, List<Path> ruleFiles, Duration evaluationInterval, List<Case> cases) {

  /** A missing sample ({@code _}) in an expanded series. */
  static final Double MISSING = null;
  /** Prometheus's staleness marker ({@code stale}): a NaN with its own bits, as remote write carries it. */
  static final double STALE = Double.longBitsToDouble(0x7ff0000000000002L);

  /** One test of the file. */
  record Case(String name, Duration interval, List<Input> series, List<AlertCheck> alerts, List<ExprCheck> exprs) {
    /** The time of the last sample or the last check, whichever is later. */
    Duration end() {
      long last = 0;
      for (Input s : series) {
        last = Math.max(last, (s.values().size() - 1) * interval.toSeconds());
      }
      for (AlertCheck a : alerts) {
        last = Math.max(last, a.at().toSeconds());
      }
      for (ExprCheck e : exprs) {
        last = Math.max(last, e.at().toSeconds());
      }
      return Duration.ofSeconds(last);
    }
  }

  /** One input series: its labels (with {@code __name__}) and a value per interval, {@link #MISSING} for none. */
  record Input(Map<String, String> labels, List<Double> values) {}

  /** The alerts named {@code alertname} expected firing at {@code at}, each as its labels. */
  record AlertCheck(Duration at, String alertname, List<Map<String, String>> expected) {}

  /** The samples {@code expr} is expected to give at {@code at}. */
  record ExprCheck(Duration at, String expr, List<Sample> expected) {}

  /** One expected sample. */
  record Sample(Map<String, String> labels, double value) {}

  private static final Pattern SELECTOR = Pattern.compile("\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)?\\s*(?:\\{(.*)})?\\s*");
  private static final Pattern LABEL = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*=\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*,?");
  private static final Pattern EXPANDING = Pattern.compile("(-?[0-9.eE+]+?)(?:([+-])([0-9.eE+]+))?x([0-9]+)");
  private static final Pattern DURATION = Pattern.compile("([0-9]+)(ms|s|m|h|d|w|y)");

  /** Reads {@code file}; its rule files are resolved against its directory. */
  @SuppressWarnings("unchecked")
  static PromtoolTests read(Path file) throws IOException {
    Map<String, Object> doc = new Yaml().load(Files.readString(file));
    List<Path> ruleFiles = new ArrayList<>();
    for (Object r : (List<Object>) doc.get("rule_files")) {
      ruleFiles.add(file.getParent().resolve((String) r).normalize());
    }
    Duration evaluation = duration((String) doc.getOrDefault("evaluation_interval", "1m"));
    List<Case> cases = new ArrayList<>();
    for (Map<String, Object> t : (List<Map<String, Object>>) doc.get("tests")) {
      Duration interval = duration((String) t.getOrDefault("interval", "1m"));
      List<Input> series = new ArrayList<>();
      for (Map<String, Object> s : (List<Map<String, Object>>) t.getOrDefault("input_series", List.of())) {
        series.add(new Input(selector((String) s.get("series")), values((String) s.get("values"))));
      }
      List<AlertCheck> alerts = new ArrayList<>();
      for (Map<String, Object> a : (List<Map<String, Object>>) t.getOrDefault("alert_rule_test", List.of())) {
        List<Map<String, String>> expected = new ArrayList<>();
        for (Map<String, Object> e : (List<Map<String, Object>>) a.getOrDefault("exp_alerts", List.of())) {
          Map<String, String> labels = new TreeMap<>();
          ((Map<String, Object>) e.getOrDefault("exp_labels", Map.of())).forEach((k, v) -> labels.put(k, String.valueOf(v)));
          expected.add(labels);
        }
        alerts.add(new AlertCheck(duration((String) a.get("eval_time")), (String) a.get("alertname"), expected));
      }
      List<ExprCheck> exprs = new ArrayList<>();
      for (Map<String, Object> e : (List<Map<String, Object>>) t.getOrDefault("promql_expr_test", List.of())) {
        List<Sample> expected = new ArrayList<>();
        for (Map<String, Object> s : (List<Map<String, Object>>) e.getOrDefault("exp_samples", List.of())) {
          expected.add(new Sample(selector((String) s.get("labels")), ((Number) s.get("value")).doubleValue()));
        }
        exprs.add(new ExprCheck(duration((String) e.get("eval_time")), (String) e.get("expr"), expected));
      }
      cases.add(new Case((String) t.get("name"), interval, series, alerts, exprs));
    }
    return new PromtoolTests(file, ruleFiles, evaluation, cases);
  }

  /** A series selector as promtool writes one ({@code name{a="b", c="d"}}): its labels, the name as {@code __name__}. */
  static Map<String, String> selector(String text) {
    Matcher m = SELECTOR.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a series selector: " + text);
    }
    Map<String, String> labels = new TreeMap<>();
    if (m.group(1) != null) {
      labels.put("__name__", m.group(1));
    }
    String body = m.group(2) == null ? "" : m.group(2);
    Matcher l = LABEL.matcher(body);
    int at = 0;
    while (at < body.length() && l.find(at) && l.start() == at) {
      labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
      at = l.end();
    }
    if (!body.substring(at).isBlank()) {
      throw new IllegalArgumentException("cannot read the labels of " + text + " from: " + body.substring(at));
    }
    return labels;
  }

  /**
   * promtool's expanding notation: {@code a+bxn} is a, a+b, ..., a+n*b (n+1 values), {@code axn} is a n+1 times,
   * {@code _} a missing sample and {@code _xn} n of them, {@code stale} a staleness marker ({@link #STALE}).
   */
  static List<Double> values(String text) {
    List<Double> out = new ArrayList<>();
    for (String token : text.trim().split("\\s+")) {
      if (token.equals("_")) {
        out.add(MISSING);
      } else if (token.equals("stale")) {
        out.add(STALE);
      } else if (token.startsWith("_x")) {
        for (int i = 0; i < Integer.parseInt(token.substring(2)); i++) {
          out.add(MISSING);
        }
      } else {
        Matcher m = EXPANDING.matcher(token);
        if (m.matches()) {
          double start = Double.parseDouble(m.group(1));
          double step = m.group(2) == null ? 0 : Double.parseDouble(m.group(3)) * (m.group(2).equals("-") ? -1 : 1);
          for (int i = 0; i <= Integer.parseInt(m.group(4)); i++) {
            out.add(start + i * step);
          }
        } else {
          out.add(Double.parseDouble(token));
        }
      }
    }
    return out;
  }

  /** A Prometheus duration ({@code 90s}, {@code 1h30m}, {@code 2d}). */
  static Duration duration(String text) {
    Matcher m = DURATION.matcher(text);
    Duration d = Duration.ZERO;
    int at = 0;
    while (m.find() && m.start() == at) {
      long n = Long.parseLong(m.group(1));
      d = d.plus(switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        case "d" -> Duration.ofDays(n);
        case "w" -> Duration.ofDays(7 * n);
        default -> Duration.ofDays(365 * n);
      });
      at = m.end();
    }
    if (at == 0 || at != text.length()) {
      throw new IllegalArgumentException("not a duration: " + text);
    }
    return d;
  }

  /** Every test file of {@code dir}, in name order. */
  static List<PromtoolTests> readAll(Path dir) throws IOException {
    List<PromtoolTests> out = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().endsWith("_test.yml")).sorted().toList()) {
        out.add(read(f));
      }
    }
    return out;
  }

  /** The labels of an alert as promtool compares them: without the name and state ALERTS carries. */
  static Map<String, String> alertLabels(Map<String, String> series, List<String> alsoDropped) {
    Map<String, String> labels = new TreeMap<>(series);
    labels.remove("__name__");
    labels.remove("alertname");
    labels.remove("alertstate");
    alsoDropped.forEach(labels::remove);
    return labels;
  }
}
