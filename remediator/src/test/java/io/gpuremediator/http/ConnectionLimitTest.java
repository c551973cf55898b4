package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectionLimitTest {
  private final List<String> closed = new ArrayList<>();
  private final List<String> reasons = new ArrayList<>();
  private final long[] now = {0};
  private final ConnectionLimit limit = new ConnectionLimit(3, Duration.ofSeconds(60), () -> now[0], (open, why) -> {
    if (why != null) {
      reasons.add(why);
    }
  });

  @Test
  void whenFullTheConnectionIdleLongestGivesWayToANewOne() {
    HttpConnection a = connection("a");
    HttpConnection b = connection("b");
    limit.opened(a);
    limit.opened(b);
    limit.opened(connection("c"));
    Runnable bDone = request(b);
    bDone.run();                       // b was busy, so it is now the most recently idle: a, then c, then b
    limit.opened(connection("d"));
    limit.opened(connection("e"));
    assertThat(closed).containsExactly("a", "c");
    assertThat(reasons).containsExactly("idle_evicted", "idle_evicted");
    assertThat(limit.open()).isEqualTo(3);
  }

  @Test
  void aRequestInProgressIsNeverCutTheNewConnectionIsRefusedInstead() {
    HttpConnection a = connection("a");
    HttpConnection b = connection("b");
    HttpConnection c = connection("c");
    limit.opened(a);
    limit.opened(b);
    limit.opened(c);
    request(a);
    request(b);
    request(c);
    limit.opened(connection("d"));
    assertThat(closed).containsExactly("d");
    assertThat(reasons).containsExactly("refused");
    assertThat(limit.open()).isEqualTo(3);
  }

  /**
   * The review's item: idle_timeout (Vert.x's) cut a webhook still being decided, which was acted on and its answer
   * lost. Only a connection with no request in progress is idle: a decision however long keeps its connection.
   */
  @Test
  void theIdleTimeoutClosesOnlyConnectionsWithNoRequestInProgress() {
    HttpConnection deciding = connection("deciding");
    HttpConnection idleOne = connection("idle");
    limit.opened(deciding);
    limit.opened(idleOne);
    Runnable decided = request(deciding);
    now[0] += Duration.ofSeconds(59).toNanos();
    limit.closeIdle();
    assertThat(closed).isEmpty();
    now[0] += Duration.ofMinutes(10).toNanos();
    limit.closeIdle();
    assertThat(closed).containsExactly("idle");
    decided.run();
    now[0] += Duration.ofSeconds(30).toNanos();
    limit.closeIdle();
    assertThat(closed).as("idle since its answer, not since it opened").containsExactly("idle");
    now[0] += Duration.ofSeconds(31).toNanos();
    limit.closeIdle();
    assertThat(closed).containsExactly("idle", "deciding");
    assertThat(limit.open()).isZero();
  }

  /** Starts a request on {@code connection}; the returned action ends it. */
  private Runnable request(HttpConnection connection) {
    List<Handler<AsyncResult<Void>>> ends = new ArrayList<>();
    HttpServerRequest request = proxy(HttpServerRequest.class, (name, args) -> name.equals("connection") ? connection : null);
    RoutingContext ctx = proxy(RoutingContext.class, (name, args) -> {
      if (name.equals("request")) {
        return request;
      }
      if (name.equals("addEndHandler")) {
        @SuppressWarnings("unchecked")
        Handler<AsyncResult<Void>> h = (Handler<AsyncResult<Void>>) args[0];
        ends.add(h);
        return ends.size();
      }
      return null;
    });
    limit.busy(ctx);
    return () -> ends.forEach(h -> h.handle(Future.succeededFuture()));
  }

  private HttpConnection connection(String name) {
    HttpConnection[] self = new HttpConnection[1];
    self[0] = proxy(HttpConnection.class, (method, args) -> switch (method) {
      case "close" -> {
        closed.add(name);
        yield Future.succeededFuture();
      }
      case "closeHandler" -> self[0];
      case "toString" -> name;
      case "hashCode" -> System.identityHashCode(self[0]);
      case "equals" -> self[0] == args[0];
      default -> null;
    });
    return self[0];
  }

  private interface Answer {
    Object of(String method, Object[] args);
  }

  private static <T> T proxy(Class<T> type, Answer answer) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
        (p, method, args) -> answer.of(method.getName(), args)));
  }
}
