package io.gpuremediator.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real Prometheus from Debian's package on 127.0.0.1, over a TSDB the test wrote (promtool's backfill of an
 * OpenMetrics file), scraping nothing. Started by the test, waited for until ready, stopped by its PID.
 */
public final class LocalPrometheus implements AutoCloseable {
  private static final long READY_SECONDS = 60;
  private final Process process;
  private final int port;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private LocalPrometheus(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Backfills {@code openMetrics} (ending with {@code # EOF}) into {@code dir}/data with promtool, then starts
   * Prometheus over it and waits for {@code /-/ready}.
   */
  public static LocalPrometheus backfilled(Path dir, String openMetrics) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path input = dir.resolve("history.om");
    Files.writeString(input, openMetrics);
    Path data = dir.resolve("data");
    Path promtoolLog = dir.resolve("promtool.log");
    Process promtool = new ProcessBuilder(List.of("promtool", "tsdb", "create-blocks-from", "openmetrics", "--quiet",
        input.toString(), data.toString())).redirectErrorStream(true).redirectOutput(promtoolLog.toFile()).start();
    if (!promtool.waitFor(READY_SECONDS, TimeUnit.SECONDS) || promtool.exitValue() != 0) {
      promtool.destroyForcibly();
      throw new IllegalStateException("promtool backfill failed: " + Files.readString(promtoolLog));
    }
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, "global: {evaluation_interval: 1m}\n");
    int port = LocalAlertmanager.freePort();
    Path log = dir.resolve("prometheus.log");
    Process p = new ProcessBuilder(List.of("prometheus", "--config.file=" + config, "--storage.tsdb.path=" + data,
        "--storage.tsdb.retention.time=30d", "--web.listen-address=127.0.0.1:" + port, "--log.level=warn"))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    LocalPrometheus prometheus = new LocalPrometheus(p, port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_SECONDS);
    String last = "nothing yet";
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException("prometheus exited with " + p.exitValue() + ": " + Files.readString(log));
      }
      try {
        HttpResponse<String> r = prometheus.http.send(HttpRequest.newBuilder(prometheus.url().resolve("/-/ready"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return prometheus;
        }
        last = "HTTP " + r.statusCode();
      } catch (IOException e) {
        last = e.toString();
      }
      p.waitFor(100, TimeUnit.MILLISECONDS);
    }
    prometheus.close();
    throw new IllegalStateException("prometheus not ready within " + READY_SECONDS + " s (last: " + last + ")");
  }

  /** Its base URL. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Stops it by PID. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
