package io.gpuremediator.bench;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Posts one body over and over with a fixed number of requests in flight, and counts answers. Run as its
 * own JVM pinned to the core the server under test does not use.
 */
public final class LoadGenerator {
  private LoadGenerator() {}

  /** {@code PORT ALERTS IN_FLIGHT WARMUP_S MEASURE_S}: prints {@code RESULT requests/s answered failed}. */
  public static void main(String[] args) throws InterruptedException {
    Result r = run(Integer.parseInt(args[0]), Payloads.xidStorm(Integer.parseInt(args[1])), Integer.parseInt(args[2]),
        Integer.parseInt(args[3]), Integer.parseInt(args[4]));
    System.out.println("RESULT " + r.requestsPerSecond() + " " + r.requests() + " " + r.failures());
    System.exit(0);
  }

  /** Requests answered per second over {@code measureSeconds}, after {@code warmupSeconds}. */
  record Result(double requestsPerSecond, long requests, long failures) {}

  static Result run(int port, String body, int inFlight, int warmupSeconds, int measureSeconds) throws InterruptedException {
    Vertx vertx = Vertx.vertx();
    WebClient client = WebClient.create(vertx, new WebClientOptions().setMaxPoolSize(inFlight).setKeepAlive(true));
    Buffer payload = Buffer.buffer(body);
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
    long end = measureFrom + TimeUnit.SECONDS.toNanos(measureSeconds);
    CountDownLatch done = new CountDownLatch(inFlight);
    for (int i = 0; i < inFlight; i++) {
      send(client, port, payload, measureFrom, end, ok, failed, done);
    }
    done.await(warmupSeconds + measureSeconds + 30L, TimeUnit.SECONDS);
    vertx.close();
    return new Result(ok.get() / (double) measureSeconds, ok.get(), failed.get());
  }

  private static void send(WebClient client, int port, Buffer payload, long measureFrom, long end, AtomicLong ok,
      AtomicLong failed, CountDownLatch done) {
    if (System.nanoTime() >= end) {
      done.countDown();
      return;
    }
    client.post(port, "127.0.0.1", "/api/v1/alerts").putHeader("Content-Type", "application/json").sendBuffer(payload)
        .onComplete(ar -> {
          long now = System.nanoTime();
          if (now >= measureFrom && now < end) {
            (ar.succeeded() && ar.result().statusCode() == 200 ? ok : failed).incrementAndGet();
          }
          send(client, port, payload, measureFrom, end, ok, failed, done);
        });
  }
}
