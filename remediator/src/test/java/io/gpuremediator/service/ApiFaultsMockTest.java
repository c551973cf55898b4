package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.simapi.Kubeconfig;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.FaultyApiProxy;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.pollinterval.IterativePollInterval;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 500 remediations (quarantine, then release) driven through a proxy that injects API faults in front of the
 * emulated API server: 5xx before and after a write was applied, 429 with Retry-After, connection resets, 2 s
 * stalls, 409 conflicts, watches reset and cut. The webhooks are sent as Alertmanager sends them: again, with
 * backoff, until answered 2xx; and once more, late, after the release. Afterwards: every node was quarantined
 * exactly once and released exactly once (counted on the versions the server stored, not on what the service
 * said), each webhook's 200 meant its whole playbook was in the cluster, and the service never said ready
 * while it had no node watch.
 */
class ApiFaultsMockTest {
  private static final int NODES = 500;
  private static final int SENDERS = 16;
  private static final long SEED = 20261123L;
  private static final String TOKEN = "api-faults-test-token";
  private static final String TAINT = "gpu-remediator.io/unhealthy";
  private static final Duration DELIVERY_DEADLINE = Duration.ofSeconds(90);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);
  @TempDir Path dir;
  private EmulatedApiServer server;
  private KubernetesClient admin;
  private FaultyApiProxy proxy;
  private RunningService service;
  private int port;

  @AfterEach
  void stop() throws Exception {
    if (service != null) {
      service.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    admin.close();
    server.close();
  }

  @Test
  void fiveHundredRemediationsThroughAFaultyApiServerActOnceAndLoseNothing() throws Exception {
    server = EmulatedApiServer.start();
    admin = server.client();
    Nodes.createFleet(admin, NODES);
    proxy = FaultyApiProxy.start(server.url(), SEED);
    startService();

    ReadinessWatch readiness = new ReadinessWatch();
    ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor();
    prober.scheduleWithFixedDelay(readiness::probe, 0, 20, TimeUnit.MILLISECONDS);
    ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
    List<String> lost = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger retries = new AtomicInteger();
    AtomicInteger lateResends = new AtomicInteger();
    long started = System.nanoTime();
    List<Future<?>> work = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String node = "gpu-node-" + i;
      work.add(senders.submit(() -> remediate(node, lost, retries, lateResends)));
      if (i % 100 == 99) {
        work.add(senders.submit(() -> proxy.cutWatches(2_000))); // an outage of the watch path, now and then
      }
    }
    for (Future<?> f : work) {
      f.get(10, TimeUnit.MINUTES);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    prober.shutdown();
    assertThat(prober.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    senders.shutdown();

    int lostCount = lost.size();
    int doubles = 0;
    for (int i = 0; i < NODES; i++) {
      String node = "gpu-node-" + i;
      int[] changes = quarantineChanges(node);
      if (changes[0] != 1 || changes[1] != 1) {
        doubles++;
        lost.add(node + ": quarantined " + changes[0] + " times, released " + changes[1] + " times");
      }
    }
    System.out.printf("api faults: %d remediations in %.1f s through %d faults injected %s, %d of %d node watches"
        + " reset; %d webhook retries, %d late re-sends; readiness probes %d (%d while no node watch for over 2 s),"
        + " ready while stale %d; double actions %d, lost quarantines or releases %d%n", NODES, seconds,
        proxy.faultCount(), proxy.injected(), proxy.watchResets(), proxy.nodeWatchesOpened(), retries.get(),
        lateResends.get(), readiness.probes.get(), readiness.whileStale.get(), readiness.readyWhileStale.get(), doubles,
        lostCount);
    assertThat(lost).as("remediations lost or acted twice").isEmpty();
    assertThat(readiness.readyWhileStale.get()).as("ready while the node watch was down").isZero();
    assertThat(readiness.whileStale.get()).as("the watch was seen down (else the readiness check proves nothing)")
        .isPositive();
    assertThat(proxy.faultCount()).isGreaterThan(NODES);
  }

  /** One node's remediation, as Alertmanager delivers it; what went wrong is added to {@code lost}. */
  private void remediate(String node, List<String> lost, AtomicInteger retries, AtomicInteger lateResends) {
    try {
      Alert firing = Alerts.xid(node, "79");
      Optional<String> fired = deliver(firing, retries);
      if (fired.isEmpty()) {
        lost.add(node + ": firing webhook never accepted");
        return;
      }
      Node n = admin.nodes().withName(node).get();
      if (!hasTaint(n) || !Boolean.TRUE.equals(n.getSpec().getUnschedulable()) || !gpuHealthy(n).equals("False")) {
        lost.add(node + ": accepted, but not quarantined: taint " + hasTaint(n) + ", unschedulable "
            + n.getSpec().getUnschedulable() + ", GpuHealthy " + gpuHealthy(n) + "; answer " + fired.get());
      }
      Optional<String> released = deliver(Alerts.resolved(firing), retries);
      if (released.isEmpty()) {
        lost.add(node + ": resolved webhook never accepted");
        return;
      }
      n = admin.nodes().withName(node).get();
      if (hasTaint(n) || Boolean.TRUE.equals(n.getSpec().getUnschedulable()) || !gpuHealthy(n).equals("True")) {
        lost.add(node + ": release accepted, but not released: taint " + hasTaint(n) + ", unschedulable "
            + n.getSpec().getUnschedulable() + ", GpuHealthy " + gpuHealthy(n) + "; answer " + released.get());
      }
      if (Math.floorMod(node.hashCode(), 5) == 0) {
        // Alertmanager restarted and re-sent the old firing notification: the episode is over, nothing happens.
        lateResends.incrementAndGet();
        deliver(firing, retries);
      }
    } catch (Exception e) {
      lost.add(node + ": " + e);
    }
  }

  /**
   * Posts until answered 2xx, as Alertmanager retries a notification: at once, then after a backoff doubling from
   * 50 ms to 1 s, until the deadline. The answer, or empty when the deadline passed first.
   */
  private Optional<String> deliver(Alert alert, AtomicInteger retries) {
    AtomicReference<String> answer = new AtomicReference<>();
    try {
      await().atMost(DELIVERY_DEADLINE).pollInSameThread().pollDelay(Duration.ZERO)
          .pollInterval(IterativePollInterval.iterative(d -> d.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF
              : d.multipliedBy(2), Duration.ofMillis(50)))
          .until(() -> {
            Optional<String> accepted = postOnce(alert);
            accepted.ifPresentOrElse(answer::set, retries::incrementAndGet);
            return accepted.isPresent();
          });
      return Optional.of(answer.get());
    } catch (ConditionTimeoutException e) {
      return Optional.empty();
    }
  }

  /** One notification: the answer when it was 2xx; empty on any other answer or a failed connection. */
  private Optional<String> postOnce(Alert alert) throws InterruptedException {
    try {
      HttpResponse<String> r = service.alerts(alert);
      return r.statusCode() / 100 == 2 ? Optional.of(r.body()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty(); // as Alertmanager: a failed notification is retried
    }
  }

  /** [times quarantined, times released], from the versions of the node the server stored. */
  private int[] quarantineChanges(String node) {
    int[] changes = new int[2];
    boolean quarantined = false;
    for (JsonObject version : proxy.nodeWrites(node).values()) {
      JsonArray taints = version.getJsonObject("spec", new JsonObject()).getJsonArray("taints", new JsonArray());
      boolean now = taints.stream().anyMatch(t -> TAINT.equals(((JsonObject) t).getString("key")));
      if (now != quarantined) {
        changes[now ? 0 : 1]++;
        quarantined = now;
      }
    }
    return changes;
  }

  private static boolean hasTaint(Node n) {
    return n.getSpec().getTaints() != null && n.getSpec().getTaints().stream().anyMatch(t -> TAINT.equals(t.getKey()));
  }

  private static String gpuHealthy(Node n) {
    return n.getStatus().getConditions().stream().filter(c -> c.getType().equals("GpuHealthy"))
        .map(NodeCondition::getStatus).findFirst().orElse("absent");
  }

  private void startService() throws Exception {
    Kubeconfig.write(dir.resolve("kubeconfig"), proxy.url());
    Tokens.write(dir, TOKEN);
    Path config = dir.resolve("remediator.yaml");
    ServiceConfig.write(config, ServiceConfig.IMMEDIATE_PLAYBOOKS, ServiceConfig.LEADING,
        "safety: {max_unavailable: 10%, rate_limit: 5000/1h, breaker: {nodes: 5000, window: 10m}}\n");
    service = RunningService.started(config, KubeApi.connect(Optional.of(dir.resolve("kubeconfig")),
        RemediatorConfig.Kubernetes.DEFAULTS.qps(), RemediatorConfig.Kubernetes.DEFAULTS.burst(),
        RemediatorConfig.Kubernetes.DEFAULTS.writesInFlight()), Alerts.liveClock(),
        Optional.of(TOKEN));
    port = service.port();
    await().atMost(Duration.ofSeconds(60)).until(() -> Http.status(port, "/readyz") == 200);
  }

  /**
   * Probes /readyz while the remediations run: a 200 from a probe sent more than {@link #STALE} after the proxy's
   * last node watch closed, and answered before a new one opened, is a service ready on a stale cache. The service
   * can know its watch is gone only once its client has read the close; with another process holding a core, that
   * took over a second once in 496 probes (a fresh clone under {@code yes}), so the deadline is 2 s: the outages last
   * longer (a cut of 2 s, then the informer's reconnect backoff), and are still seen.
   */
  private static final Duration STALE = Duration.ofSeconds(2);

  private final class ReadinessWatch {
    final AtomicInteger probes = new AtomicInteger();
    final AtomicInteger whileStale = new AtomicInteger();
    final AtomicInteger readyWhileStale = new AtomicInteger();

    void probe() {
      long downSince = proxy.nodeWatchDownSince();
      long sent = System.nanoTime();
      int code = Http.status(port, "/readyz");
      boolean stale = downSince != -1 && proxy.nodeWatchDownSince() == downSince
          && sent - downSince > STALE.toNanos();
      probes.incrementAndGet();
      if (stale) {
        whileStale.incrementAndGet();
        if (code == 200) {
          readyWhileStale.incrementAndGet();
        }
      }
    }
  }
}
