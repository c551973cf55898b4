package io.gpuremediator.http;

import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds the webhooks in progress (being read, decoded or decided) at {@code queue}, before any body is read. A
 * large body (over a quarter of {@code max_body_bytes}, or of unannounced length) may hold at most an eighth of
 * those places (so at most {@code queue / 8 * max_body_bytes} are buffered) and is decided on its own worker, so
 * a flood of large webhooks never keeps out, nor slows, the small ones Alertmanager sends. Beyond: 503 with Retry-After, which Alertmanager retries. The place is given back when
 * the answer is sent or the connection is lost.
 */
public final class WebhookAdmission implements PlatformHandler {
  private static final String RETRY_AFTER_SECONDS = "5";

  /** Told of each refused webhook. */
  public interface Listener {
    /** A webhook was refused: {@code large} whether it was a large one. */
    void refused(boolean large);
  }

  private final int queue;
  private final int largeQueue;
  private final long largeBytes;
  private final Listener listener;
  private int inProgress;
  private int largeInProgress;

  /** Creates the admission for webhooks of at most {@code maxBodyBytes}. */
  public WebhookAdmission(int queue, long maxBodyBytes, Listener listener) {
    if (queue < 2) {
      throw new IllegalArgumentException("the webhook queue needs at least 2 places");
    }
    this.queue = queue;
    this.largeQueue = Math.max(1, queue / 8);
    this.largeBytes = maxBodyBytes / 4;
    this.listener = listener;
  }

  @Override
  public void handle(RoutingContext ctx) {
    boolean large = isLarge(ctx.request().getHeader("Content-Length"));
    if (!admit(large)) {
      listener.refused(large);
      ctx.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
      JsonAnswers.json(ctx, 503, JsonAnswers.error("too many webhooks in progress" + (large ? " with large bodies" : "")
          + "; retry"));
      return;
    }
    AtomicBoolean released = new AtomicBoolean();
    ctx.addEndHandler(done -> {
      if (released.compareAndSet(false, true)) {
        release(large);
      }
    });
    ctx.put(WebhookHandler.LARGE, large);
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

  private synchronized boolean admit(boolean large) {
    if (inProgress >= queue || large && largeInProgress >= largeQueue) {
      return false;
    }
    inProgress++;
    if (large) {
      largeInProgress++;
    }
    return true;
  }

  private synchronized void release(boolean large) {
    inProgress--;
    if (large) {
      largeInProgress--;
    }
  }
}
