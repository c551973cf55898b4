package io.gpuremediator.http;

import io.vertx.core.http.HttpConnection;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Caps the open connections at {@code max}. When a connection arrives and the cap is reached, the connection idle
 * the longest (no request in progress) is closed to make room, as nginx does with keep-alive connections; when
 * none is idle, the new connection is closed instead. So thousands of idle connections cost at most {@code max}
 * sockets and never keep Alertmanager out, and requests in progress are never cut.
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
  private final Map<HttpConnection, int[]> inProgress = new HashMap<>();
  /** Idle connections, the one idle longest first. */
  private final LinkedHashSet<HttpConnection> idle = new LinkedHashSet<>();

  /** Creates the limit. */
  public ConnectionLimit(int max, Listener listener) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be positive");
    }
    this.max = max;
    this.listener = listener;
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
          evicted = idle.iterator().next();
          forget(evicted);
        }
      }
      if (!refused) {
        inProgress.put(connection, new int[1]);
        idle.add(connection);
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
            idle.add(connection);
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
