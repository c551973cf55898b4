package io.gpuremediator.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The service under test answers 503 "not ready: ..." while it has no lease or its node watch resyncs, as it must: on
 * a busy machine that happens mid-section. A webhook so answered decided nothing, so the bench waits, bounded, until
 * {@code /readyz} says ready again and sends it once more; each wait is a pause that the section prints after its
 * figures, and the sample it hit is the retried one.
 */
final class Resyncs {
  /** The longest one resync is waited out before the section fails with what {@code /readyz} last said. */
  static final long MAX_PAUSE_SECONDS = 120;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static int pauses;
  private static long pausedNanos;
  private static String lastWhy = "";

  private Resyncs() {}

  /** Whether an answer is the service's "not ready" (nothing was decided). */
  static boolean notReady(HttpResponse<String> r) {
    return r.statusCode() == 503 && r.body().contains("not ready");
  }

  /** Polls {@code /readyz} until it answers 200, at most {@link #MAX_PAUSE_SECONDS}; counts the pause. */
  static synchronized void waitOut(int port, String why) throws InterruptedException {
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(MAX_PAUSE_SECONDS);
    String seen = why;
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          pauses++;
          pausedNanos += System.nanoTime() - t0;
          lastWhy = why.strip();
          return;
        }
        seen = r.body().strip();
      } catch (IOException e) {
        seen = e.toString();
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("service on port " + port + " not ready again within " + MAX_PAUSE_SECONDS
        + " s of a 503; /readyz last said: " + seen);
  }

  /** Forgets the pauses counted so far (at the start of a section). */
  static synchronized void reset() {
    pauses = 0;
    pausedNanos = 0;
    lastWhy = "";
  }

  /** The section's pauses, one line, or empty when there were none. */
  static synchronized String report() {
    if (pauses == 0) {
      return "";
    }
    return String.format(Locale.ROOT, "paused %d time(s), %.1f s in all, waiting out the service's 503 (last: %s); each"
        + " webhook so answered decided nothing and was sent again, its sample the second send", pauses, pausedNanos / 1e9,
        lastWhy);
  }
}
