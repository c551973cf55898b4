package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.Notifier.Notification;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.outbound.http.WebhookNotifier;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Playbooks;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Notifications sent by episodes through the Vert.x notifier to local receivers: a Slack-compatible one that
 * answers, one that never answers, one that answers 500. The step's message is sent once (a restart does not send it
 * again), stage changes follow, and the receivers that hang or fail never hold up a decision.
 */
class NotificationsTest {
  private static final String NODE = "gpu-node-0";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-xid", """
            - notify: {receiver: oncall, message: "{{ node }} quarantined: {{ annotations.summary }}", stage_changes: true}
            - notify: {receiver: hangs, message: "{{ node }} quarantined"}
            - notify: {receiver: fails, message: "{{ node }} quarantined"}
            - drain: {mode: evict, timeout: 30m}
          on_resolved:
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
      """);

  private final Vertx vertx = Vertx.vertx();
  @TempDir Path dir;
  private HttpServer receivers;
  private final List<JsonObject> slack = new CopyOnWriteArrayList<>();
  private final AtomicInteger hanging = new AtomicInteger();
  private final AtomicReference<HttpServerRequest> hung = new AtomicReference<>();
  private final AtomicInteger failed = new AtomicInteger();
  private final Map<String, Integer> outcomes = new ConcurrentHashMap<>();
  private WebhookNotifier notifier;
  private ClosedLoopHarness h;

  @BeforeEach
  void start() throws Exception {
    receivers = vertx.createHttpServer().requestHandler(this::receive).listen(0, "127.0.0.1").toCompletionStage()
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    notifier = notifier(1000);
  }

  private WebhookNotifier notifier(int capacity) {
    URI base = URI.create("http://127.0.0.1:" + receivers.actualPort());
    return new WebhookNotifier(vertx, Map.of(
        "oncall", new WebhookNotifier.Target("oncall", true, base.resolve("/slack/T000/B000/XXXX")),
        "hangs", new WebhookNotifier.Target("hangs", false, base.resolve("/hangs")),
        "fails", new WebhookNotifier.Target("fails", false, base.resolve("/fails"))), capacity,
        new OutboundListener() {
          @Override
          public void request(String target, String outcome) {
            outcomes.merge(target + " " + outcome, 1, Integer::sum);
          }

          @Override
          public void dropped(String receiver) {
            outcomes.merge("dropped " + receiver, 1, Integer::sum);
          }
        }, Clock.systemUTC(), Duration.ofMillis(200));
  }

  private void receive(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      if (req.path().startsWith("/slack")) {
        slack.add(body.toJsonObject());
        req.response().end("ok");
      } else if (req.path().equals("/hangs")) {
        hung.set(req);
        hanging.incrementAndGet(); // never answered
      } else {
        failed.incrementAndGet();
        req.response().setStatusCode(500).end("internal error");
      }
    });
  }

  @AfterEach
  void close() throws Exception {
    if (h != null) {
      h.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private OutboundPorts ports(Notifier n) {
    return new OutboundPorts(Silences.NOT_CONFIGURED, n, InstanceHealth.NOT_CONFIGURED);
  }

  @Test
  void theStepsMessageIsSentOnceAndEveryStageChangeFollows() throws Exception {
    h = new ClosedLoopHarness(dir, PLAYBOOKS, ports(notifier), new MutableClock(Instant.now()));
    h.fire(Alerts.xid(NODE, "79"));
    h.look(NODE);
    await().atMost(Duration.ofSeconds(10)).until(() -> slack.size() >= 3);
    assertThat(slack).extracting(j -> j.getString("text")).containsExactly(
        "gpu-node-0 quarantined: GpuXidHardwareError on gpu-node-0",
        "gpu-node-0 is draining (gpu-xid): drain started (evict, timeout 30m)",
        "gpu-node-0 is drained (gpu-xid): no pods left to move off gpu-node-0");
    assertThat(slack).allSatisfy(j -> assertThat(j.fieldNames()).containsExactly("text"));
    Episode e = h.episode(NODE);
    assertThat(e.notified()).containsExactly("gpu-xid/actions/2", "gpu-xid/actions/3", "gpu-xid/actions/4");
    assertThat(e.holds()).as("a notification is sent, not held").isEmpty();

    ClosedLoopHarness restarted = h.restarted(dir, PLAYBOOKS, ports(notifier));
    try {
      restarted.look(NODE);
      restarted.look(NODE);
      // Both caches caught up before a watch is closed: the emulated server's event loop can stall when a client
      // closes its watch while an event is on its way.
      restarted.episode(NODE);
      h.episode(NODE);
    } finally {
      restarted.stop();
    }
    h.fire(Alerts.resolved(Alerts.xid(NODE, "79")));
    h.look(NODE);
    assertThat(slack).hasSize(3); // the release ran in the webhook: no stage change of the loop's
    assertThat(outcomes).containsEntry("notify:oncall ok", 3);
  }

  @Test
  void receiversThatHangOrAnswer500NeverHoldUpADecision() throws Exception {
    h = new ClosedLoopHarness(dir, PLAYBOOKS, ports(notifier), new MutableClock(Instant.now()));
    long started = System.nanoTime();
    h.fire(Alerts.xid(NODE, "79"));
    // A look whose write meets a conflict on a busy machine retries on the next: the loop's own rule, not a wait.
    h.lookUntil(NODE, Stage.DRAINED, 3);
    long tookMillis = (System.nanoTime() - started) / 1_000_000;
    // The look that queued the notifications is over while the hanging receiver still holds its request open: had the
    // look waited for it, the notifier's 5 s timeout would have closed that request before the look returned.
    await().atMost(Duration.ofSeconds(10)).until(() -> hanging.get() == 1 && failed.get() >= 2);
    assertThat(hung.get().response().closed()).as("the hanging request is still open after the look").isFalse();
    assertThat(hung.get().response().ended()).isFalse();
    assertThat(notifier.held()).isGreaterThanOrEqualTo(2);
    System.out.printf("notify: the webhook and the look that drained %s took %d ms while a receiver hung and another"
        + " answered 500 (retried %d times so far)%n", NODE, tookMillis, failed.get());
    await().atMost(Duration.ofSeconds(20)).until(() -> outcomes.getOrDefault("notify:fails gave_up", 0) == 1);
    assertThat(failed.get()).isEqualTo(5);
    assertThat(outcomes).containsEntry("notify:fails http_500", 5);
  }

  @Test
  void aFullQueueDropsAndCountsWithoutWaiting() {
    WebhookNotifier small = notifier(2);
    Notification n = new Notification("hangs", "x", NODE, "quarantined", "step");
    assertThat(small.send(n)).isEqualTo(Notifier.Queued.QUEUED);
    assertThat(small.send(n)).isEqualTo(Notifier.Queued.QUEUED);
    assertThat(small.send(n)).isEqualTo(Notifier.Queued.DROPPED);
    assertThat(small.send(new Notification("nobody", "x", NODE, "", ""))).isEqualTo(Notifier.Queued.UNKNOWN_RECEIVER);
    assertThat(outcomes).containsEntry("dropped hangs", 1).containsEntry("notify:nobody unknown_receiver", 1);
  }
}
