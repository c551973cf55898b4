package io.gpuremediator.backtest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The firing remediation alerts of a Prometheus over a time range: {@code ALERTS{alertstate="firing",remediate="true"}}
 * (what Alertmanager routes to the service) by {@code /api/v1/query_range}, one page of at most {@link #PAGE} at a
 * time so no answer grows with the range, the pages' samples merged per series.
 */
public final class AlertHistory {
  /** A query's page: a day at a one-minute step is 1,441 points a series, well under Prometheus' 11,000. */
  static final Duration PAGE = Duration.ofDays(1);
  static final String QUERY = "ALERTS{alertstate=\"firing\",remediate=\"true\"}";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One alert's series: its labels (without {@code __name__} and {@code alertstate}) and the instants it fired. */
  public record Series(Map<String, String> labels, List<Instant> firing) {
    /** Copies. */
    public Series {
      labels = Map.copyOf(labels);
      firing = List.copyOf(firing);
    }
  }

  /** Prometheus could not be read, or answered what is not a range query's answer. */
  public static final class PrometheusException extends Exception {
    private static final long serialVersionUID = 1L;

    PrometheusException(String message) {
      super(message);
    }
  }

  private final HttpClient http;
  private final URI prometheus;

  /** Reads from the Prometheus at {@code prometheus} (its base URL). */
  public AlertHistory(HttpClient http, URI prometheus) {
    this.http = http;
    String base = prometheus.toString();
    this.prometheus = URI.create(base.endsWith("/") ? base : base + "/");
  }

  /** Every firing remediation alert's series in [from, to], sampled every {@code step}. */
  public List<Series> read(Instant from, Instant to, Duration step) throws PrometheusException {
    Map<Map<String, String>, TreeSet<Instant>> series = new LinkedHashMap<>();
    for (Instant start = from; !start.isAfter(to); start = start.plus(PAGE).plus(step)) {
      Instant end = start.plus(PAGE).isAfter(to) ? to : start.plus(PAGE);
      for (JsonNode s : page(start, end, step)) {
        Map<String, String> labels = new TreeMap<>();
        s.path("metric").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        labels.remove("__name__");
        labels.remove("alertstate");
        TreeSet<Instant> times = series.computeIfAbsent(labels, l -> new TreeSet<>());
        for (JsonNode v : s.path("values")) {
          times.add(Instant.ofEpochMilli(Math.round(v.path(0).asDouble() * 1000)));
        }
      }
    }
    List<Series> out = new ArrayList<>();
    series.forEach((labels, times) -> out.add(new Series(labels, List.copyOf(times))));
    return out;
  }

  private JsonNode page(Instant start, Instant end, Duration step) throws PrometheusException {
    URI uri = prometheus.resolve("api/v1/query_range?query=" + URLEncoder.encode(QUERY, StandardCharsets.UTF_8)
        + "&start=" + start.getEpochSecond() + "&end=" + end.getEpochSecond() + "&step=" + step.toSeconds() + "s");
    HttpResponse<String> r;
    try {
      r = http.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new PrometheusException("cannot read " + uri + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PrometheusException("interrupted reading " + uri);
    }
    JsonNode body;
    try {
      body = JSON.readTree(r.body());
    } catch (IOException e) {
      throw new PrometheusException(uri + " answered HTTP " + r.statusCode() + " with what is not JSON");
    }
    if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
      throw new PrometheusException(uri + " answered HTTP " + r.statusCode() + ": " + body.path("error").asText(r.body()));
    }
    if (!"matrix".equals(body.path("data").path("resultType").asText())) {
      throw new PrometheusException(uri + " answered a " + body.path("data").path("resultType").asText() + ", not a matrix");
    }
    return body.path("data").path("result");
  }
}
