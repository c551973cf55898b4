package io.gpuremediator.http;

import io.gpuremediator.bounded.TokenBucket;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.time.Clock;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Requests per client address, as a token bucket: each address may send {@code rate.count()} at once and earns them
 * back over {@code rate.window()}. Beyond it: 429 with Retry-After, before anything of the request is read. The
 * buckets of at most {@link #MAX_CLIENTS} addresses are kept; full buckets, then the oldest, are dropped when that
 * is reached, so many clients cost bounded memory.
 */
public final class ClientRate implements PlatformHandler {
  static final int MAX_CLIENTS = 10_000;

  /** Told of each refused request. */
  public interface Listener {
    /** A request from {@code client} was refused. */
    void limited(String client);
  }

  private final Rate rate;
  private final Clock clock;
  private final Listener listener;
  private final double perSecond;
  private final Map<String, TokenBucket> buckets = new LinkedHashMap<>();

  /** Creates the limit. */
  public ClientRate(Rate rate, Clock clock, Listener listener) {
    if (rate.count() < 1) {
      throw new IllegalArgumentException("a client rate must allow at least 1 request");
    }
    this.rate = rate;
    this.clock = clock;
    this.listener = listener;
    this.perSecond = rate.count() * 1000.0 / rate.window().toMillis();
  }

  @Override
  public void handle(RoutingContext ctx) {
    SocketAddress remote = ctx.request().remoteAddress();
    String client = remote == null || remote.host() == null ? "unknown" : remote.host();
    long waitMillis = take(client);
    if (waitMillis == 0) {
      ctx.next();
      return;
    }
    listener.limited(client);
    ctx.response().putHeader("Retry-After", Long.toString(Math.max(1, (waitMillis + 999) / 1000)));
    JsonAnswers.json(ctx, 429, JsonAnswers.error("too many requests from " + client + ": more than " + rate.count() + " in "
        + Durations.format(rate.window())));
  }

  /** Takes a token for {@code client}: 0 when it had one, else how many milliseconds until it has. */
  synchronized long take(String client) {
    TokenBucket bucket = buckets.get(client);
    if (bucket == null) {
      if (buckets.size() >= MAX_CLIENTS) {
        evictFull();
      }
      bucket = new TokenBucket(perSecond, (int) Math.min(rate.count(), Integer.MAX_VALUE),
          () -> clock.millis() * 1_000_000L);
      buckets.put(client, bucket);
    }
    long waitNanos = bucket.takeOrWait();
    return waitNanos == 0 ? 0 : (waitNanos + 999_999) / 1_000_000;
  }

  /** Buckets kept now. */
  synchronized int buckets() {
    return buckets.size();
  }

  /**
   * Drops the buckets that have refilled (their clients are as good as new), then the oldest, until a tenth of the
   * places are free: the scan runs once per thousand new clients, not once per client.
   */
  private void evictFull() {
    buckets.values().removeIf(TokenBucket::isFull);
    Iterator<TokenBucket> oldest = buckets.values().iterator();
    while (buckets.size() > MAX_CLIENTS - MAX_CLIENTS / 10 && oldest.hasNext()) {
      oldest.next();
      oldest.remove();
    }
  }
}
