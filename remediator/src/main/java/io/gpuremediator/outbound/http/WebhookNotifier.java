package io.gpuremediator.outbound.http;

import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends notifications off the caller's path: {@link #send} only counts the message in and hands it to the event
 * loop, never waiting. At most {@code capacity} messages are held (queued, in flight or waiting to retry); past
 * that a message is dropped and counted. A receiver that answers 5xx, 429 or nothing is tried again after a backoff
 * that doubles from {@code firstBackoff} (1, 2, 4 and 8 s in the service), then given up (counted). Each receiver
 * gets its messages one at a time, in the order they were sent (a message waits for the one before it, retries
 * included): a channel never reads "drained" above "draining". Slack receivers get {@code {"text": ...}}; webhook
 * receivers the whole message.
 */
public final class WebhookNotifier implements Notifier {
  private static final long TIMEOUT_MILLIS = 5_000;
  private static final int ATTEMPTS = 5;

  /** A receiver with its URL (read from its file at start). */
  public record Target(String name, boolean slack, URI url) {}

  private final Vertx vertx;
  private final WebClient client;
  private final Map<String, Target> targets;
  private final Map<Target, Lane> lanes = new HashMap<>();
  private final int capacity;
  private final AtomicInteger held = new AtomicInteger();
  private final OutboundListener listener;
  private final Clock clock;
  private final long firstBackoffMillis;

  /** A notifier for these receivers, holding at most {@code capacity} messages, retrying after 1 s, 2 s, 4 s, 8 s. */
  public WebhookNotifier(Vertx vertx, Map<String, Target> targets, int capacity, OutboundListener listener, Clock clock) {
    this(vertx, targets, capacity, listener, clock, Duration.ofSeconds(1));
  }

  /** The same, with the first retry after {@code firstBackoff}. */
  public WebhookNotifier(Vertx vertx, Map<String, Target> targets, int capacity, OutboundListener listener, Clock clock,
      Duration firstBackoff) {
    this.vertx = vertx;
    this.client = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(5000).setIdleTimeout(60)
        .setUserAgent("gpu-remediator").setFollowRedirects(false).setMaxPoolSize(4));
    this.targets = Map.copyOf(targets);
    targets.values().forEach(t -> lanes.put(t, new Lane()));
    this.capacity = capacity;
    this.listener = listener;
    this.clock = clock;
    this.firstBackoffMillis = Math.max(1, firstBackoff.toMillis());
  }

  @Override
  public Queued send(Notification n) {
    Target target = targets.get(n.receiver());
    if (target == null) {
      listener.request("notify:" + n.receiver(), "unknown_receiver");
      return Queued.UNKNOWN_RECEIVER;
    }
    if (held.incrementAndGet() > capacity) {
      held.decrementAndGet();
      listener.dropped(n.receiver());
      return Queued.DROPPED;
    }
    JsonObject body = target.slack() ? new JsonObject().put("text", slackEscaped(n.text()))
        : new JsonObject().put("receiver", n.receiver()).put("text", n.text()).put("node", n.node())
            .put("stage", n.stage()).put("reason", n.reason()).put("time", clock.instant().toString());
    Lane lane = lanes.get(target);
    synchronized (lane) {
      if (lane.sending) {
        lane.waiting.add(body.toBuffer());
        return Queued.QUEUED;
      }
      lane.sending = true;
    }
    vertx.runOnContext(v -> attempt(target, body.toBuffer(), 1));
    return Queued.QUEUED;
  }

  /** A receiver's messages behind the one being sent, oldest first; {@code sending} while one is. */
  private static final class Lane {
    private final ArrayDeque<Buffer> waiting = new ArrayDeque<>();
    private boolean sending;
  }

  /** The message to the receiver is done with (sent or given up): the next in its lane goes. */
  private void done(Target target) {
    held.decrementAndGet();
    Lane lane = lanes.get(target);
    Buffer next;
    synchronized (lane) {
      next = lane.waiting.poll();
      lane.sending = next != null;
    }
    if (next != null) {
      attempt(target, next, 1);
    }
  }

  private void attempt(Target target, Buffer body, int attempt) {
    int port = target.url().getPort() > 0 ? target.url().getPort() : "https".equals(target.url().getScheme()) ? 443 : 80;
    String path = target.url().getRawPath() == null || target.url().getRawPath().isEmpty() ? "/" : target.url().getRawPath();
    if (target.url().getRawQuery() != null) {
      path += "?" + target.url().getRawQuery();
    }
    client.post(port, target.url().getHost(), path).ssl("https".equals(target.url().getScheme())).timeout(TIMEOUT_MILLIS)
        .putHeader("Content-Type", "application/json").sendBuffer(body)
        .onComplete(ar -> {
          String outcome = ar.failed() ? (String.valueOf(ar.cause()).contains("imeout") ? "timeout" : "error")
              : ar.result().statusCode() / 100 == 2 ? "ok" : "http_" + ar.result().statusCode();
          listener.request("notify:" + target.name(), outcome);
          if (outcome.equals("ok") || !retriable(ar.failed() ? null : ar.result()) || attempt >= ATTEMPTS) {
            if (!outcome.equals("ok")) {
              listener.request("notify:" + target.name(), "gave_up");
            }
            done(target);
            return;
          }
          vertx.setTimer(firstBackoffMillis << (attempt - 1), id -> attempt(target, body, attempt + 1));
        });
  }

  private static boolean retriable(HttpResponse<Buffer> answer) {
    return answer == null || answer.statusCode() >= 500 || answer.statusCode() == 429 || answer.statusCode() == 408;
  }

  /** Messages held now (queued, in flight or waiting to retry). */
  public int held() {
    return held.get();
  }

  /**
   * The text as Slack shows it literally: its control characters {@code &}, {@code <} and {@code >} escaped as Slack's
   * message formatting asks ("Escaping text"), so a label's {@code <!channel>} or {@code <https://x|y>} pages nobody and
   * links nowhere.
   */
  static String slackEscaped(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
