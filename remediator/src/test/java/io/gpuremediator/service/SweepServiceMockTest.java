package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.simapi.JobKubelet;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole service with {@code sweeps} against the emulated API server and its kubelet, on four GPU nodes and a CPU
 * one: sweeps start on idle GPU nodes only, a few at a time and inside the fleet's and the domains' budgets, yield
 * (their Job deleted, no episode) when GPU work is scheduled on their node, and a failed diagnostic opens an episode of
 * the shipped playbook gpu-sweep.
 */
class SweepServiceMockTest {
  private static final String TOKEN = "sweep-test-token";
  private static final String NS = "gpu-remediator";
  private static final String SWEEP_LABEL = "gpu-remediator.io/sweep";
  private static final String ZONE = "topology.kubernetes.io/zone";
  @TempDir Path dir;
  private EmulatedApiServer server;
  private KubernetesClient client;
  private JobKubelet kubelet;

  @BeforeEach
  void fleet() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    for (int i = 0; i < 4; i++) {
      String zone = i < 2 ? "zone-a" : "zone-b";
      client.nodes().withName("gpu-node-" + i).edit(n -> {
        n.getMetadata().getLabels().put(ZONE, zone);
        return n;
      });
    }
    Tokens.write(dir, TOKEN);
  }

  @AfterEach
  void stop() {
    if (kubelet != null) {
      kubelet.close();
    }
    client.close();
    server.close();
  }

  @Test
  void sweepsRunOnIdleGpuNodesOnlyWithinMaxConcurrentAndYieldToGpuWork() throws Exception {
    gpuPod("ml-training", "trainer-0", "gpu-node-2");
    Path config = config("safety: {max_unavailable: 3}\n",
        "sweeps: [{name: idle-diag, every: 1h, playbook: gpu-sweep, max_concurrent: 2}]\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Clock.systemUTC(), Optional.of(TOKEN))) {
      // No kubelet runs them: each Job stays under way, so max_concurrent is what holds the third idle node back.
      await().atMost(Duration.ofSeconds(20)).until(() -> sweeps(service).getJsonArray("running").size() == 2);
      long lists = jobLists();
      await().atMost(Duration.ofSeconds(20)).until(() -> jobLists() >= lists + 5); // five looks more
      assertThat(sweeps(service).getJsonArray("running")).hasSize(2);
      assertThat(sweeps(service).getInteger("due")).isPositive();
      Set<String> swept = sweptNodes();
      assertThat(swept).hasSize(2).isSubsetOf("gpu-node-0", "gpu-node-1", "gpu-node-3");
      assertThat(sweeps(service).getString("blocked_by")).isEmpty();
      String preempted = swept.iterator().next();
      Job job = jobOn(preempted);
      assertThat(job.getSpec().getTemplate().getSpec().getPriorityClassName()).isEqualTo("gpu-remediator-sweep");

      gpuPod("ml-training", "trainer-1", preempted);
      await().atMost(Duration.ofSeconds(20)).until(() -> !sweptNodes().contains(preempted) && sweptNodes().size() == 2);
      assertThat(client.batch().v1().jobs().inNamespace(NS).withName(job.getMetadata().getName()).get()).isNull();
      assertThat(sweptNodes()).as("the freed slot goes to the node still due, never to one holding GPU work")
          .doesNotContain("gpu-node-2", "cpu-node-1", preempted).hasSize(2);
      assertThat(service.decisions()).contains("sweep_preempted", "GPU work was scheduled on the node: pod ml-training/trainer-1");
      assertThat(service.node(preempted)).as("a preempted sweep opens no episode").isEmpty();
      assertThat(client.nodes().withName(preempted).get().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
    }
  }

  @Test
  void sweepsStayInsideTheDomainsBudgetCountingTheNodesAlreadyOut() throws Exception {
    cordon("gpu-node-3"); // zone-b's one node out: its budget of 1 is used up
    Path config = config("safety: {max_unavailable: 3, domains: [{label: " + ZONE + ", max_unavailable: 1}]}\n",
        "sweeps: [{name: idle-diag, every: 1h, playbook: gpu-sweep, max_concurrent: 4}]\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Clock.systemUTC(), Optional.of(TOKEN))) {
      await().atMost(Duration.ofSeconds(20)).until(() -> sweeps(service).getString("blocked_by")
          .startsWith("domain_budget_exhausted"));
      assertThat(sweptNodes()).singleElement().isIn("gpu-node-0", "gpu-node-1");
      assertThat(service.decisions()).contains("domain_budget_exhausted");
    }
  }

  @Test
  void sweepsStayInsideTheFleetBudgetCountingTheSweepsUnderWay() throws Exception {
    cordon("gpu-node-3"); // one of max_unavailable 2 out: room for one sweep, and the sweep under way fills it
    Path config = config("safety: {max_unavailable: 2}\n",
        "sweeps: [{name: idle-diag, every: 1h, playbook: gpu-sweep, max_concurrent: 4}]\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Clock.systemUTC(), Optional.of(TOKEN))) {
      await().atMost(Duration.ofSeconds(20)).until(() -> sweeps(service).getString("blocked_by").startsWith("max_unavailable"));
      assertThat(sweptNodes()).singleElement().isIn("gpu-node-0", "gpu-node-1", "gpu-node-2");
      assertThat(sweeps(service).getJsonArray("running")).hasSize(1);
    }
  }

  @Test
  void aSweepPastItsDeadlineOpensAnEpisodeOnlyWhenItsPodWasSeenReady() throws Exception {
    Path config = config("safety: {max_unavailable: 4}\n",
        "sweeps: [{name: idle-diag, every: 1h, playbook: gpu-sweep, max_concurrent: 2}]\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Clock.systemUTC(), Optional.of(TOKEN))) {
      await().atMost(Duration.ofSeconds(20)).until(() -> sweptNodes().size() == 2);
      // No kubelet here: the test plays the Job controller. gpu-node-0's pod never starts (an image that cannot be
      // pulled); gpu-node-1's starts (Ready), and its diagnostic hangs past the deadline.
      jobStatus(jobOn("gpu-node-1"), new JobStatusBuilder().withActive(1).withReady(1).build());
      long lists = jobLists();
      await().atMost(Duration.ofSeconds(20)).until(() -> jobLists() >= lists + 2); // a look has seen it Ready
      for (String node : List.of("gpu-node-0", "gpu-node-1")) {
        jobStatus(jobOn(node), new JobStatusBuilder().withFailed(1).addNewCondition().withType("Failed").withStatus("True")
            .withReason("DeadlineExceeded").endCondition().build());
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> service.node("gpu-node-1").isPresent()
          && service.decisions().contains("sweep_not_run"));
      assertThat(service.node("gpu-node-1").orElseThrow().encode()).contains("GpuSweepFailed");
      assertThat(service.node("gpu-node-0")).as("a pod never seen Ready did not run the diagnostic").isEmpty();
      assertThat(service.decisions()).contains("passed its deadline without a look having seen its pod Ready");
    }
  }

  private void jobStatus(Job job, JobStatus status) {
    job.setStatus(status);
    client.batch().v1().jobs().inNamespace(NS).resource(job).updateStatus();
  }

  @Test
  void aFailedDiagnosticOnAnIdleNodeOpensAnEpisodeAndAPassOpensNone() throws Exception {
    client.nodes().withName("gpu-node-1").edit(n -> {
      n.getMetadata().getLabels().put(JobKubelet.FAULTY_MEMORY_LABEL, "3");
      return n;
    });
    kubelet = new JobKubelet(server, NS, Path.of("../simapi/node-tools"), Path.of("../tests/real"), dir.resolve("kubelet"),
        j -> j.getMetadata().getLabels().containsKey(SWEEP_LABEL)
            || "diagnose".equals(j.getMetadata().getLabels().get("gpu-remediator.io/step"))).start();
    Path config = config("safety: {max_unavailable: 4}\n",
        "sweeps: [{name: idle-diag, every: 1h, playbook: gpu-sweep, max_concurrent: 4}]\n");
    try (RunningService service = RunningService.ready(config, KubeApi.of(client), Clock.systemUTC(), Optional.of(TOKEN))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> service.node("gpu-node-1").isPresent());
      assertThat(service.node("gpu-node-1").orElseThrow().encode()).contains("GpuSweepFailed", "gpu-sweep");
      await().atMost(Duration.ofSeconds(20)).until(() -> Boolean.TRUE.equals(client.nodes().withName("gpu-node-1").get()
          .getSpec().getUnschedulable()));
      await().atMost(Duration.ofSeconds(20)).until(() -> jobs(j -> "Complete".equals(condition(j))).size() == 3);
      for (String healthy : List.of("gpu-node-0", "gpu-node-2", "gpu-node-3")) {
        assertThat(service.node(healthy)).as(healthy + " passed its sweep").isEmpty();
      }
      Job failed = jobOn("gpu-node-1");
      assertThat(failed.getStatus().getConditions()).anySatisfy(c -> assertThat(c.getReason()).isEqualTo("PodFailurePolicy"));
    }
  }

  private Path config(String... lines) throws Exception {
    String[] all = new String[lines.length + 1];
    all[0] = "loop: {interval: 200ms, retry_delay: 200ms}\n";
    System.arraycopy(lines, 0, all, 1, lines.length);
    return ServiceConfig.writeShipped(dir, all);
  }

  private static JsonObject sweeps(RunningService service) throws Exception {
    JsonArray sweeps = new JsonObject(service.get("/api/v1/fleet").body()).getJsonArray("sweeps");
    return sweeps == null ? new JsonObject().put("running", new JsonArray()).put("due", -1).put("blocked_by", "")
        : sweeps.getJsonObject(0);
  }

  /** How often the sweep Jobs were listed: once a look. */
  private long jobLists() {
    return server.requestLog().stream().filter(r -> r.contains("/jobs?labelSelector=gpu-remediator.io%2Fsweep")).count();
  }

  private List<Job> jobs(Predicate<Job> which) {
    return client.batch().v1().jobs().inNamespace(NS).withLabel(SWEEP_LABEL).list().getItems().stream().filter(which)
        .toList();
  }

  private Set<String> sweptNodes() {
    return jobs(j -> condition(j) == null).stream().map(j -> j.getSpec().getTemplate().getSpec().getNodeName())
        .collect(Collectors.toSet());
  }

  private Job jobOn(String node) {
    return jobs(j -> node.equals(j.getSpec().getTemplate().getSpec().getNodeName())).get(0);
  }

  private static String condition(Job j) {
    return j.getStatus() == null || j.getStatus().getConditions() == null || j.getStatus().getConditions().isEmpty() ? null
        : j.getStatus().getConditions().get(j.getStatus().getConditions().size() - 1).getType();
  }

  private void cordon(String node) {
    client.nodes().withName(node).edit(n -> {
      n.getSpec().setUnschedulable(true);
      return n;
    });
  }

  /** A running pod that requests the node's eight GPUs, as the scheduler binds one. */
  private void gpuPod(String namespace, String name, String node) {
    client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(name)
        .withNamespace(namespace).endMetadata().withNewSpec().withNodeName(node).addNewContainer().withName("trainer")
        .withImage("nvcr.io/nvidia/pytorch:24.05-py3").withNewResources()
        .withRequests(Map.of("nvidia.com/gpu", new Quantity("8"))).withLimits(Map.of("nvidia.com/gpu", new Quantity("8")))
        .endResources().endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
  }
}
