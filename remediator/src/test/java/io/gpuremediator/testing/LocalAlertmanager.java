package io.gpuremediator.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real Alertmanager from Debian's package, on 127.0.0.1 with clustering off, routing everything to a receiver
 * that sends nothing. Started by the test, waited for until ready, stopped by its PID.
 */
public final class LocalAlertmanager implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** Starts one in {@code dir} on a free port and waits (at most 30 s) for {@code /-/ready}. */
  public LocalAlertmanager(Path dir) throws IOException, InterruptedException {
    this(dir, freePort());
  }

  /** A free port on 127.0.0.1 (for an Alertmanager started later on it). */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Starts one in {@code dir} on {@code port} and waits (at most 30 s) for {@code /-/ready}. */
  public LocalAlertmanager(Path dir, int port) throws IOException, InterruptedException {
    this(dir, port, """
        route: {receiver: blackhole, group_wait: 1h, group_interval: 1h, repeat_interval: 24h}
        receivers: [{name: blackhole}]
        """);
  }

  /** Starts one in {@code dir} on {@code port} with {@code configYaml}, and waits (at most 30 s) for {@code /-/ready}. */
  public LocalAlertmanager(Path dir, int port, String configYaml) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path config = dir.resolve("alertmanager.yml");
    Files.writeString(config, configYaml);
    this.port = port;
    log = dir.resolve("alertmanager.log");
    process = new ProcessBuilder(List.of(binary(), "--config.file=" + config, "--storage.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port, "--cluster.listen-address=", "--log.level=warn"))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "nothing yet";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("alertmanager exited with " + process.exitValue() + ": " + Files.readString(log));
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(url().resolve("/-/ready")).timeout(Duration.ofSeconds(2))
            .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = "HTTP " + r.statusCode();
      } catch (IOException e) {
        last = e.toString();
      }
      process.waitFor(100, TimeUnit.MILLISECONDS);
    }
    close();
    throw new IllegalStateException("alertmanager not ready within 30 s (last: " + last + ")");
  }

  private static String binary() {
    for (String name : List.of("prometheus-alertmanager", "alertmanager")) {
      for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
        if (Files.isExecutable(Path.of(dir, name))) {
          return Path.of(dir, name).toString();
        }
      }
    }
    throw new IllegalStateException("no alertmanager on the PATH (make deps installs prometheus-alertmanager)");
  }

  /** Its base URL. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** GET a path of its API; the body. */
  public String get(String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(url().resolve(path)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** POST JSON to a path of its API; the status code. */
  public int post(String path, String json) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(url().resolve(path)).timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  /**
   * Creates someone else's silence (the on-call's, for rack 12's maintenance, two hours), as the review's attack named
   * one; its id.
   */
  public String theirSilence() throws IOException, InterruptedException {
    Instant now = Instant.now();
    String silence = "{\"matchers\":[{\"name\":\"rack\",\"value\":\"12\",\"isRegex\":false,\"isEqual\":true}],"
        + "\"startsAt\":\"" + now + "\",\"endsAt\":\"" + now.plus(Duration.ofHours(2)) + "\","
        + "\"createdBy\":\"oncall@example.com\",\"comment\":\"rack 12 maintenance\"}";
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url().resolve("/api/v2/silences"))
        .timeout(Duration.ofSeconds(5)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(silence)).build(), HttpResponse.BodyHandlers.ofString());
    Matcher id = Pattern.compile("\"silenceID\":\"([^\"]+)\"").matcher(r.body());
    if (r.statusCode() != 200 || !id.find()) {
      throw new IllegalStateException("silence not created: " + r.statusCode() + " " + r.body());
    }
    return id.group(1);
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
