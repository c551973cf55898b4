package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.simapi.Kubeconfig;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Jobs;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.SignedLedgers;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Service processes (the shaded jar) with leader election, one emulated API server, real HTTP: the leader is
 * killed with SIGKILL in the middle of a drain that a PodDisruptionBudget holds; the follower takes the Lease,
 * resumes the drain from the node's ledger (not a new one), and once the budget lets go evicts the pod, once. Then
 * that leader is killed while the diagnostic Job runs; a third instance takes over the same Job and releases the
 * node when it completes: one Job. And a leader killed while a GPU reset and a reboot are under way: the next one
 * finishes both from the ledger, one reset and one reboot.
 */
class FailoverIT {
  private static final String JAR = System.getProperty("remediator.jar", "target/remediator.jar");
  private static final String TOKEN = "failover-test-token-0123456789";
  private static final String NODE = "gpu-node-1";
  /**
   * The instances' Lease: each of the five failovers below waits it out once. Shorter than the default 15s, long
   * enough that a leader starved on a busy machine still renews within two thirds of it.
   */
  private static final String LEASE = "8s";
  @TempDir Path dir;
  private EmulatedApiServer server;
  private KubernetesClient client;
  private final List<Instance> instances = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (Instance i : instances) {
      i.process.destroy();
      if (!i.process.waitFor(20, TimeUnit.SECONDS)) {
        i.process.destroyForcibly();
      }
    }
    client.close();
    server.close();
  }

  @Test
  void theFollowerFinishesADrainTheKilledLeaderStarted() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    Nodes.trainerHeldByBudget(client, server, NODE);
    writeKubeconfigAndToken();
    instances.add(new Instance("a"));
    instances.add(new Instance("b"));

    Instance leader = leader(Duration.ofSeconds(60));
    assertThat(leader.post(Alerts.json(Alerts.xid(NODE, "79")))).contains("actions_applied");
    await().atMost(Duration.ofSeconds(30)).until(() -> leader.stage().filter(n -> n.getString("stage").equals("draining")
        && n.getString("progress").contains("waiting on PDB ml-training/llm-pdb")).isPresent());

    instances.add(new Instance("c")); // a spare, for the second failover
    leader.process.destroyForcibly(); // SIGKILL: no shutdown hook, the Lease is not given back
    assertThat(leader.process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    long killed = System.nanoTime();
    Instance follower = leader(Duration.ofSeconds(90));
    double takeover = (System.nanoTime() - killed) / 1e9;
    await().atMost(Duration.ofSeconds(30)).until(() -> follower.stage().filter(n -> n.getString("stage").equals("draining"))
        .isPresent());
    server.allow("ml-training", "llm-pdb", 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> follower.stage().filter(n -> n.getString("stage").equals("drained"))
        .isPresent());

    assertThat(server.evictionsGranted("ml-training", "trainer-0")).as("evicted once, after the budget allowed").isEqualTo(1);
    assertThat(follower.decisions()).as("the follower resumed the drain, it did not start another")
        .doesNotContain("\"reason\":\"drain_started\"").contains("\"reason\":\"drained\"");

    // Mid-diagnose: the new leader is killed while the Job runs; a third instance takes over the same Job.
    assertThat(follower.post(Alerts.json(Alerts.resolved(Alerts.xid(NODE, "79"))))).contains("resolved_actions_applied");
    await().atMost(Duration.ofSeconds(30)).until(() -> client.batch().v1().jobs().inNamespace("gpu-remediator").list()
        .getItems().size() == 1 && follower.stage().filter(n -> n.getJsonObject("step").getString("running", "")
            .equals("diagnose")).isPresent());
    follower.process.destroyForcibly();
    assertThat(follower.process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    killed = System.nanoTime();
    Instance third = leader(Duration.ofSeconds(90));
    double second = (System.nanoTime() - killed) / 1e9;
    var job = client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems().get(0);
    job.setStatus(new JobStatusBuilder().addNewCondition().withType("Complete")
        .withStatus("True").endCondition().build());
    client.batch().v1().jobs().inNamespace("gpu-remediator").resource(job).updateStatus();
    await().atMost(Duration.ofSeconds(30)).until(() -> third.stage().isEmpty() && third.decisions()
        .contains("\"reason\":\"released\""));
    assertThat(client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems()).as("one Job per diagnose step")
        .hasSize(1);
    assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).isNotEqualTo(true);
    System.out.printf("failover: leader killed mid-drain, follower ready %.1f s later; its successor killed mid-diagnose,"
        + " the third ready %.1f s later; failovers survived 2; double actions 0; lost releases 0%n", takeover, second);
  }

  @Test
  void theNextLeaderFinishesAResetAndARebootTheKilledLeaderStartedOnceEach() throws Exception {
    Instance leader = twoInstancesOverFourNodes();
    String reset = "gpu-node-1";
    String reboot = "gpu-node-2";
    assertThat(leader.post(Alerts.json(Alerts.xid(reset, "48", "reset_gpu"), Alerts.xid(reboot, "79", "reboot"))))
        .contains("actions_applied");
    Jobs.complete(client, "collect"); // the reboot's evidence, collected beside its drain
    await().atMost(Duration.ofSeconds(30)).until(() -> jobs("gpu_reset").size() == 1 && jobs("reboot").size() == 1
        && leader.stage(reset).filter(n -> n.getString("stage").equals("repairing")).isPresent()
        && leader.stage(reboot).filter(n -> n.getString("stage").equals("repairing")).isPresent());

    leader.process.destroyForcibly(); // mid-reset and mid-reboot: SIGKILL, the Lease is not given back
    assertThat(leader.process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    long killed = System.nanoTime();
    Instance next = leader(Duration.ofSeconds(90));
    double takeover = (System.nanoTime() - killed) / 1e9;
    // The Job controller and the kubelet: the reset completes; the reboot Job's pod dies with the node, which comes
    // back with a new bootID.
    finish(jobs("gpu_reset").get(0), "Complete");
    finish(jobs("reboot").get(0), "Failed");
    Nodes.booted(client, reboot, reboot + "-boot-2", true);
    await().atMost(Duration.ofSeconds(30)).until(() -> jobs("diagnose").size() == 2);
    jobs("diagnose").forEach(j -> finish(j, "Complete"));
    await().atMost(Duration.ofSeconds(30)).until(() -> next.stage(reset).isEmpty() && next.stage(reboot).isEmpty());

    assertThat(jobs("gpu_reset")).as("one reset").hasSize(1);
    assertThat(jobs("reboot")).as("one reboot").hasSize(1);
    for (String node : List.of(reset, reboot)) {
      assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).as(node + " back").isNotEqualTo(true);
      String ledger = client.nodes().withName(node).get().getMetadata().getAnnotations().get(NodeKeys.LEDGER_ANNOTATION);
      assertThat(new JsonObject(SignedLedgers.ledger(ledger)).getJsonArray("history")).as(node + ": the episode finished once").hasSize(1);
    }
    assertThat(next.decisions()).as("the next leader resumed both steps, it started none")
        .doesNotContain("\"reason\":\"repair_started\"").contains("\"reason\":\"repaired\"");
    System.out.printf("failover: leader killed mid-reset and mid-reboot, the next ready %.1f s later; resets 1, reboots 1,"
        + " episodes finished 2 of 2%n", takeover);
  }

  private List<Job> jobs(String step) {
    return client.batch().v1().jobs().inNamespace("gpu-remediator").withLabel("gpu-remediator.io/step", step).list()
        .getItems();
  }

  private void finish(Job job, String type) {
    job.setStatus(new JobStatusBuilder().addNewCondition().withType(type).withStatus("True").endCondition().build());
    client.batch().v1().jobs().inNamespace("gpu-remediator").resource(job).updateStatus();
  }

  @Test
  void aWebhookCutOffByTheLeadersDeathIsRetriedOnTheNextLeaderAndActsOnceOnEachNode() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 200);
    writeKubeconfigAndToken();
    String safety = "{max_unavailable: 30%, rate_limit: 100000/1h, breaker: {nodes: 100000, window: 10m}}";
    instances.add(new Instance("a", safety));
    instances.add(new Instance("b", safety));
    Instance leader = leader(Duration.ofSeconds(60));
    String webhook = Alerts.json(IntStream.range(0, 200).mapToObj(i -> Alerts.xid("gpu-node-" + i, "79"))
        .toArray(Alert[]::new));

    // Alertmanager sends; the leader dies while deciding; Alertmanager retries against whoever answers.
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
      try {
        return leader.post(webhook);
      } catch (Exception e) {
        return "cut off: " + e;
      }
    });
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> client.nodes().list().getItems()
        .stream().anyMatch(n -> Boolean.TRUE.equals(n.getSpec().getUnschedulable())));
    leader.process.destroyForcibly();
    assertThat(leader.process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    int quarantinedAtKill = quarantined();
    Instance next = leader(Duration.ofSeconds(90));
    String retried = next.post(webhook);
    assertThat(retried).contains("\"decisions\"");

    int budget = 60;
    assertThat(quarantined()).as("quarantined nodes: the budget, not more (first answer: %s)", first.join()).isEqualTo(budget);
    // Each Event is written after its node, in the background: the next leader's are all written soon after its answer;
    // those of the nodes the killed leader quarantined may have died in its queue, and the retry, a duplicate for those
    // nodes, does not write them again. A lost Event, never a second action.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(quarantineEvents().size())
        .as("nodes with their quarantine Event (%d quarantined by the killed leader)", quarantinedAtKill)
        .isGreaterThanOrEqualTo(budget - quarantinedAtKill));
    Map<String, Long> quarantineEvents = quarantineEvents();
    assertThat(quarantineEvents.values()).as("one quarantine per node, however often the webhook came").allMatch(c -> c == 1);
    assertThat(quarantineEvents.size()).isBetween(budget - quarantinedAtKill, budget);
    System.out.printf("failover: leader killed mid-webhook after %d of 200 nodes were quarantined; the retry on the next"
        + " leader finished it: %d quarantined (max_unavailable 30%%), double actions 0, Events lost to the kill %d%n",
        quarantinedAtKill, budget, budget - quarantineEvents.size());
  }

  /** The quarantine Events the API server holds, by node. */
  private Map<String, Long> quarantineEvents() {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> "GpuXidHardwareError".equals(e.getReason()))
        .collect(Collectors.groupingBy(e -> e.getInvolvedObject().getName(), Collectors.counting()));
  }

  @Test
  void aLeaderPausedPastItsLeaseWritesNothingWhenItWakes() throws Exception {
    Instance paused = twoInstancesOverFourNodes();
    signal(paused, "STOP");
    long stopped = System.nanoTime();
    Instance next = leader(Duration.ofSeconds(90));
    double takeover = (System.nanoTime() - stopped) / 1e9;
    signal(paused, "CONT");
    // Awake, its elector has not yet tried to renew; the fence already refuses: not ready, and nothing written.
    String answer = paused.postStatus(Alerts.json(Alerts.xid("gpu-node-2", "79")));
    assertThat(answer).startsWith("503");
    assertThat(client.nodes().withName("gpu-node-2").get().getSpec().getUnschedulable()).isNotEqualTo(true);
    assertThat(next.post(Alerts.json(Alerts.xid("gpu-node-2", "79")))).contains("actions_applied");
    System.out.printf("failover: leader paused (SIGSTOP) past its Lease; the follower led %.1f s later; woken, the paused"
        + " one answered %s and wrote nothing%n", takeover, answer.substring(0, 3));
  }

  /** Four GPU nodes and two instances of the service over them; answers the one that leads. */
  private Instance twoInstancesOverFourNodes() throws IOException {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    writeKubeconfigAndToken();
    instances.add(new Instance("a"));
    instances.add(new Instance("b"));
    return leader(Duration.ofSeconds(60));
  }

  /** The kubeconfig the instances reach the emulated API server with, and their bearer token. */
  private void writeKubeconfigAndToken() throws IOException {
    Kubeconfig.write(dir.resolve("kubeconfig"), server.url());
    Tokens.write(dir, TOKEN);
  }

  private static void signal(Instance i, String signal) throws Exception {
    assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(i.process.pid())).start().waitFor()).isZero();
  }

  /**
   * The nodes cordoned now. Right after a kill the emulated API server (one lock over its store) may still be working
   * through the writes the dead leader had in flight, up to kubernetes.writes_in_flight of them on a busy machine: a
   * list can take longer than the client's 5 s, so it is asked again until one is answered.
   */
  private int quarantined() {
    AtomicInteger cordoned = new AtomicInteger();
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
      cordoned.set((int) client.nodes().list().getItems().stream()
          .filter(n -> Boolean.TRUE.equals(n.getSpec().getUnschedulable())).count());
      return true;
    });
    return cordoned.get();
  }

  /** The live instance that reports ready (only the leader does), within {@code within}. */
  private Instance leader(Duration within) {
    return await().atMost(within).pollInterval(Duration.ofMillis(200))
        .until(() -> instances.stream().filter(Instance::ready).findFirst(), Optional::isPresent).orElseThrow();
  }

  /** One service process on its own port, stopped by PID. */
  private final class Instance {
    final Process process;
    final int port;
    final Path log;

    Instance(String name) throws IOException {
      this(name, "{max_unavailable: 50%}");
    }

    Instance(String name, String safety) throws IOException {
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Path config = dir.resolve(name + ".yaml");
      Files.writeString(config, "listen: 127.0.0.1:" + port + "\nauth: {webhook_token_file: token, operator_token_file: operator-token, ledger_key_file: ledger-key}\nplaybooks: ["
          + Path.of("../deploy/playbooks").toAbsolutePath() + "]\nkubernetes: {kubeconfig: kubeconfig}\n"
          + "safety: " + safety + "\nloop: {interval: 200ms, retry_delay: 200ms}\n"
          + "leader_election: {enabled: true, namespace: gpu-remediator, lease: gpu-remediator, lease_duration: " + LEASE + "}\n");
      log = dir.resolve(name + ".log");
      process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-jar", JAR,
          "serve", "--config", config.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    boolean ready() {
      // A paused process accepts the connection and never answers: ask with a timeout.
      return process.isAlive() && Http.status(port, "/readyz", Duration.ofSeconds(1)) == 200;
    }

    String post(String body) throws Exception {
      return Http.postJson(port, "/api/v1/alerts", body, TOKEN).body();
    }

    /** The status code and the body, as "503 {...}". */
    String postStatus(String body) throws Exception {
      HttpResponse<String> r = Http.postJson(port, "/api/v1/alerts", body, TOKEN);
      return r.statusCode() + " " + r.body();
    }

    String get(String path) throws Exception {
      return Http.get(port, path, Tokens.operator(TOKEN)).body();
    }

    Optional<JsonObject> stage() throws Exception {
      return stage(NODE);
    }

    Optional<JsonObject> stage(String node) throws Exception {
      JsonArray nodes = new JsonObject(get("/api/v1/nodes")).getJsonArray("nodes");
      for (int i = 0; i < nodes.size(); i++) {
        if (nodes.getJsonObject(i).getString("node").equals(node) && nodes.getJsonObject(i).getString("stage") != null) {
          return Optional.of(nodes.getJsonObject(i));
        }
      }
      return Optional.empty();
    }

    String decisions() throws Exception {
      return get("/api/v1/decisions");
    }
  }
}
