package io.gpuremediator.signals;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.sun.net.httpserver.HttpServer;
import io.gpuremediator.pipeline.Http;
import io.gpuremediator.pipeline.Poll;
import io.gpuremediator.pipeline.Ports;
import io.gpuremediator.pipeline.Processes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A single-node VictoriaMetrics on 127.0.0.1 (the Debian package's {@code victoria-metrics}), with retention long
 * enough for series written years in the past and its query cache off (the tests write into the past). Writes that
 * go through {@link #writeUrl()} are searchable when they are answered: VictoriaMetrics otherwise makes new rows
 * visible up to a few seconds later, and vmalert's replay chains rules on what it just wrote.
 */
final class VictoriaMetrics implements AutoCloseable {
  /** Exports show staleness markers as a bare NaN. */
  private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
  private final int port;
  private final HttpServer flushingWrites;
  private final ExecutorService writers = Executors.newFixedThreadPool(4);
  private final HttpClient client = HttpClient.newHttpClient();
  private final Http http = new Http();

  VictoriaMetrics(Processes processes, Path dir) throws Exception {
    port = Ports.free();
    processes.start("victoria-metrics", List.of("victoria-metrics", "-storageDataPath=" + dir.resolve("vm-data"),
        "-httpListenAddr=127.0.0.1:" + port, "-retentionPeriod=100y", "-search.disableCache", "-loggerLevel=WARN"),
        dir.resolve("victoria-metrics.log"));
    Poll.until("VictoriaMetrics healthy on 127.0.0.1:" + port, Duration.ofSeconds(60), Duration.ofMillis(100),
        () -> http.status(url() + "/health") == 200 ? Optional.of(true) : Optional.empty());
    flushingWrites = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    flushingWrites.setExecutor(writers);
    flushingWrites.createContext("/", x -> {
      try (x) {
        HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(url() + x.getRequestURI()))
            .POST(HttpRequest.BodyPublishers.ofByteArray(x.getRequestBody().readAllBytes()));
        for (String h : List.of("Content-Type", "Content-Encoding", "X-Prometheus-Remote-Write-Version")) {
          Optional.ofNullable(x.getRequestHeaders().getFirst(h)).ifPresent(v -> forward.header(h, v));
        }
        HttpResponse<byte[]> answer = client.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (answer.statusCode() / 100 == 2) {
          flush();
        }
        x.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
        x.getResponseBody().write(answer.body());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    flushingWrites.start();
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  /** Where a remote-write client writes so that what it wrote is searchable once answered. */
  String writeUrl() {
    return "http://127.0.0.1:" + flushingWrites.getAddress().getPort();
  }

  /** Makes every row written so far searchable. */
  void flush() throws IOException, InterruptedException {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url() + "/internal/force_flush")).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("force_flush answered " + r.statusCode() + ": " + r.body());
    }
  }

  /** Writes {@code series} by remote write (staleness markers kept) and makes them searchable. */
  void write(List<RemoteWrite.Series> series) throws IOException, InterruptedException {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url() + "/api/v1/write"))
        .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "snappy")
        .header("X-Prometheus-Remote-Write-Version", "0.1.0")
        .POST(HttpRequest.BodyPublishers.ofByteArray(RemoteWrite.body(series))).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException("remote write answered " + r.statusCode() + ": " + r.body());
    }
    flush();
  }

  /** The raw samples of the series {@code match} selects between two times (seconds, inclusive), a JSON line each. */
  List<JsonNode> export(String match, long fromSeconds, long toSeconds) throws IOException, InterruptedException {
    String u = url() + "/api/v1/export?match[]=" + URLEncoder.encode(match, StandardCharsets.UTF_8) + "&start=" + fromSeconds
        + "&end=" + toSeconds;
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(u)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException(u + " answered " + r.statusCode() + ": " + r.body());
    }
    List<JsonNode> out = new ArrayList<>();
    for (String line : r.body().split("\n")) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }

  /** An instant query at {@code timeSeconds}, looking back {@code step} as vmalert does: the result array. */
  JsonNode query(String expr, long timeSeconds, Duration step) throws IOException, InterruptedException {
    return http.get(url() + "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8) + "&time=" + timeSeconds
        + "&step=" + step.toSeconds() + "s", null).path("data").path("result");
  }

  @Override
  public void close() {
    flushingWrites.stop(0);
    writers.shutdownNow();
  }
}
