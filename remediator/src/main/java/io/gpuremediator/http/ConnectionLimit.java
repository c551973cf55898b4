package io.gpuremediator.http;

import io.vertx.core.http.HttpConnection;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Caps the open connections at {@code max}. When a connection arrives and the cap is reached, the connection idle
 * the longest (no request in progress) is closed to make room, as nginx does with keep-alive connections; when
 * none is idle, the new connection is closed instead. So thousands of idle connections cost at most {@code max}
 * sockets and never keep Alertmanager out, and requests in progress are never cut. A connection idle for longer than
 * {@code idleTimeout} is closed ({@link #closeIdle}); one with a request in progress is not idle, however long its
 * webhook takes to decide.
 *
 * <p>Called from the server's event loop; synchronized all the same, as Vert.x may spread connections over loops.
 */
public final class ConnectionLimit {
  /** What became of connections the limit closed. */
  public interface Listener {
    /** {@code open} connections now; {@code closed} non-null when the limit just closed one, and why. */
    void connections(int open, String closed);
  }

  private final int max;
  private final Listener listener;
  private final long idleNanos;
  private final LongSupplier nanos;
  private final Map<HttpConnection, int[]> inProgress = new HashMap<>();
  /** Idle connections, the one idle longest first, with when each became idle. */
  private final LinkedHashMap<HttpConnection, Long> idle = new LinkedHashMap<>();

  /** Creates the limit; {@code nanos} tells the time (System::nanoTime). */
  public ConnectionLimit(int max, Duration idleTimeout, LongSupplier nanos, Listener listener) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be positive");
    }
    this.max = max;
    this.idleNanos = idleTimeout.toNanos();
    this.nanos = nanos;
    this.listener = listener;
  }

  /** Closes every connection idle (no request in progress) for longer than the idle timeout; call it every second. */
  public void closeIdle() {
    List<HttpConnection> expired = new ArrayList<>();
    synchronized (this) {
      long now = nanos.getAsLong();
      for (var e : idle.entrySet()) {
        if (now - e.getValue() <= idleNanos) {
          break; // the rest became idle later
        }
        expired.add(e.getKey());
      }
      expired.forEach(this::forget);
    }
    expired.forEach(HttpConnection::close);
    if (!expired.isEmpty()) {
      listener.connections(open(), null);
    }
  }

  /** The server's connection handler. */
  public void opened(HttpConnection connection) {
    HttpConnection evicted = null;
    boolean refused = false;
    int open;
    synchronized (this) {
      if (inProgress.size() >= max) {
        if (idle.isEmpty()) {
          refused = true;
        } else {
          evicted = idle.keySet().iterator().next();
          forget(evicted);
        }
      }
      if (!refused) {
        inProgress.put(connection, new int[1]);
        idle.put(connection, nanos.getAsLong());
      }
      open = inProgress.size();
    }
    if (refused) {
      connection.close();
      listener.connections(open, "refused");
      return;
    }
    connection.closeHandler(v -> closed(connection));
    if (evicted != null) {
      evicted.close();
      listener.connections(open, "idle_evicted");
    } else {
      listener.connections(open, null);
    }
  }

  /**
   * The router's first handler: the request's connection is busy until the response ends or fails (Vert.x Web's
   * end handlers, which the response's own single end and close handlers must be left to).
   */
  public void busy(RoutingContext ctx) {
    HttpConnection connection = ctx.request().connection();
    synchronized (this) {
      int[] count = inProgress.get(connection);
      if (count != null) {
        count[0]++;
        idle.remove(connection);
      }
    }
    AtomicBoolean done = new AtomicBoolean();
    ctx.addEndHandler(v -> {
      if (done.compareAndSet(false, true)) {
        synchronized (this) {
          int[] count = inProgress.get(connection);
          if (count != null && --count[0] == 0) {
            idle.put(connection, nanos.getAsLong());
          }
        }
      }
    });
    ctx.next();
  }

  /** Connections open now. */
  public synchronized int open() {
    return inProgress.size();
  }

  private void closed(HttpConnection connection) {
    int open;
    synchronized (this) {
      if (!forget(connection)) {
        return;
      }
      open = inProgress.size();
    }
    listener.connections(open, null);
  }

  private boolean forget(HttpConnection connection) {
    idle.remove(connection);
    return inProgress.remove(connection) != null;
  }
}
