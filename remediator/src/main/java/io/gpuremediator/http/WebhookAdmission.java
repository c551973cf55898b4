package io.gpuremediator.http;

import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds the webhooks in progress (being read, decoded or decided) at {@code queue}, before any body is read. A
 * large body (over a quarter of {@code max_body_bytes}, or of unannounced length) may hold at most an eighth of
 * those places (so at most {@code queue / 8 * max_body_bytes} are buffered) and is decided on its own worker, so
 * a flood of large webhooks never keeps out, nor slows, the small ones Alertmanager sends. A body must arrive within
 * {@code body_timeout} (else 408, and the connection is closed), and one client address may have at most a quarter of
 * the places reading bodies at once: slow bodies from one token holder cannot hold every place. Beyond: 503 with
 * Retry-After, which Alertmanager retries. The place is given back when the answer is sent or the connection is lost.
 */
public final class WebhookAdmission implements PlatformHandler {
  private static final String RETRY_AFTER_SECONDS = "5";
  private static final String BODY_READ = "webhook.bodyRead";

  /** Told of each refused webhook. */
  public interface Listener {
    /**
     * A webhook was refused: {@code webhook_queue}, {@code webhook_queue_large}, {@code webhook_client} (its address
     * already reads its share of bodies) or {@code webhook_body_timeout}.
     */
    void refused(String reason);
  }

  private final int queue;
  private final int largeQueue;
  private final int perClient;
  private final long largeBytes;
  private final long bodyTimeoutMillis;
  private final Listener listener;
  private int inProgress;
  private int largeInProgress;
  private final Map<String, Integer> reading = new HashMap<>();

  /** Creates the admission for webhooks of at most {@code maxBodyBytes}, each body read within {@code bodyTimeout}. */
  public WebhookAdmission(int queue, long maxBodyBytes, Duration bodyTimeout, Listener listener) {
    if (queue < 2) {
      throw new IllegalArgumentException("the webhook queue needs at least 2 places");
    }
    this.queue = queue;
    this.largeQueue = Math.max(1, queue / 8);
    this.perClient = Math.max(1, queue / 4);
    this.largeBytes = maxBodyBytes / 4;
    this.bodyTimeoutMillis = Math.max(1, bodyTimeout.toMillis());
    this.listener = listener;
  }

  @Override
  public void handle(RoutingContext ctx) {
    boolean large = isLarge(ctx.request().getHeader("Content-Length"));
    String client = Optional.ofNullable(ctx.request().remoteAddress()).map(SocketAddress::hostAddress).orElse("");
    Optional<String> refused = admit(large, client);
    if (refused.isPresent()) {
      listener.refused(refused.get());
      ctx.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
      JsonAnswers.json(ctx, 503, JsonAnswers.error(refused.get().equals("webhook_client")
          ? "too many webhook bodies from " + client + " still being read; retry"
          : "too many webhooks in progress" + (large ? " with large bodies" : "") + "; retry"));
      return;
    }
    AtomicBoolean read = new AtomicBoolean();
    long timer = ctx.vertx().setTimer(bodyTimeoutMillis, id -> {
      if (read.compareAndSet(false, true)) {
        doneReading(client);
        listener.refused("webhook_body_timeout");
        HttpConnection connection = ctx.request().connection();
        ctx.addEndHandler(v -> connection.close()); // beside the end handlers that give the place back
        ctx.response().putHeader("Connection", "close");
        JsonAnswers.json(ctx, 408, JsonAnswers.error("the body did not arrive within limits.body_timeout ("
            + bodyTimeoutMillis / 1000.0 + " s)"));
      }
    });
    Runnable bodyRead = () -> {
      if (read.compareAndSet(false, true)) {
        ctx.vertx().cancelTimer(timer);
        doneReading(client);
      }
    };
    AtomicBoolean released = new AtomicBoolean();
    ctx.addEndHandler(done -> {
      bodyRead.run();
      if (released.compareAndSet(false, true)) {
        release(large);
      }
    });
    ctx.put(WebhookHandler.LARGE, large);
    ctx.put(BODY_READ, bodyRead);
    ctx.next();
  }

  /** The handler after the body's: the body is in, so its client's place among those reading is given back. */
  public static void bodyRead(RoutingContext ctx) {
    Runnable read = ctx.get(BODY_READ);
    if (read != null) {
      read.run();
    }
    ctx.next();
  }

  private boolean isLarge(String contentLength) {
    if (contentLength == null) {
      return true;
    }
    try {
      return Long.parseLong(contentLength.strip()) > largeBytes;
    } catch (NumberFormatException e) {
      return true;
    }
  }

  private synchronized Optional<String> admit(boolean large, String client) {
    if (inProgress >= queue || large && largeInProgress >= largeQueue) {
      return Optional.of(large ? "webhook_queue_large" : "webhook_queue");
    }
    if (reading.getOrDefault(client, 0) >= perClient) {
      return Optional.of("webhook_client");
    }
    inProgress++;
    if (large) {
      largeInProgress++;
    }
    reading.merge(client, 1, Integer::sum);
    return Optional.empty();
  }

  private synchronized void doneReading(String client) {
    reading.computeIfPresent(client, (c, n) -> n <= 1 ? null : n - 1);
  }

  private synchronized void release(boolean large) {
    inProgress--;
    if (large) {
      largeInProgress--;
    }
  }
}
