package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.DraObjects;
import io.gpuremediator.testing.Jobs;
import io.gpuremediator.testing.JumpClock;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Provisioners;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.Tokens;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/base's ClusterRole and Role against the Kubernetes calls the service makes: the whole service
 * runs against the emulated API server through every path that calls Kubernetes (leader election, the node
 * informer, a quarantine through a write conflict, a drain blocked by a budget until its timeout deletes the
 * pod, failed diagnostics with their log read, a human's release, a GPU reset and a reboot by Job each diagnosed and
 * returned to service, one GPU of a DRA node fenced, reset, diagnosed and unfenced, a reset Job and a fence rule deleted by a
 * human (each then read from the API server: the watches no longer hold them), a storm that opens the breaker, refusal
 * Events, shutdown), every
 * request it sends is recorded and turned into an RBAC (apiGroup, resource, verb, namespace), and the two
 * must be equal: a call the roles do not grant fails, and so does a grant no call uses. The provider overlays' roles are
 * held to the same rule for the calls of their replacements.
 */
class ClusterRoleTest {
  @TempDir Path dir;

  private static final String NAMESPACE = "gpu-remediator";
  private static final String TOKEN = "rbac-test-token-0123456789";
  /** The test's own client says so, and its calls are left out: they are the simulated cluster's, not the service's. */
  private static final String SETUP_AGENT = "rbac-test-setup";
  private static final Pattern CORE = Pattern.compile("^/api/v1/(?:namespaces/([^/]+)/)?([^/]+)(?:/([^/]+))?(?:/([^/]+))?$");
  private static final Pattern GROUPED =
      Pattern.compile("^/apis/([^/]+)/[^/]+/(?:namespaces/([^/]+)/)?([^/]+)(?:/([^/]+))?(?:/([^/]+))?$");

  /** Replace steps through each provider that works through the Kubernetes API, and each way of Cluster API's. */
  private static final String PROVIDER_PLAYBOOKS = """
      playbooks:
        - name: through-karpenter
          match: ['alertname="ReplaceThroughKarpenter"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: replace, effect: NoSchedule}
            - replace: {provider: karpenter, timeout: 1h}
        - name: through-cluster-api
          match: ['alertname="ReplaceThroughClusterApi"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: replace, effect: NoSchedule}
            - replace: {provider: cluster-api, timeout: 1h}
        - name: through-machine-health-check
          match: ['alertname="RemediateThroughClusterApi"']
          actions:
            - taint: {key: gpu-remediator.io/unhealthy, value: replace, effect: NoSchedule}
            - replace: {provider: cluster-api, via: remediate_annotation, timeout: 1h}
      """;

  private EmulatedApiServer server;

  /** One RBAC permission as a call needs it; {@code namespace} is null for cluster-scoped calls. */
  record Call(String group, String resource, String verb, String namespace) implements Comparable<Call> {
    String grant() {
      return (group.isEmpty() ? "core" : group) + " " + resource + " " + verb;
    }

    @Override
    public int compareTo(Call o) {
      return toString().compareTo(o.toString());
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void theRolesGrantExactlyTheCallsTheServiceMakes() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient setup = new KubernetesClientBuilder().withConfig(new ConfigBuilder(server.client().getConfiguration())
        .withUserAgent(SETUP_AGENT).build()).build();
    IntStream.range(0, 6).forEach(i -> setup.nodes().resource(Nodes.gpu("gpu-node-" + i, "10.0.0." + (i + 1))).create());
    setup.pods().inNamespace("ml-training").resource(new PodBuilder().withNewMetadata().withName("trainer-0")
        .withLabels(Map.of("app", "llm")).endMetadata().withNewSpec().withNodeName("gpu-node-1").endSpec()
        .withNewStatus().withPhase("Running").endStatus().build()).create();
    server.budget("ml-training", "llm-pdb", "app", "llm", 0);
    List<RecordedRequest> sent = new ArrayList<>();

    Tokens.write(dir, TOKEN);
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nauth: {webhook_token_file: token, operator_token_file: operator-token, ledger_key_file: ledger-key}\nplaybooks: ["
        + Path.of("../deploy/playbooks").toAbsolutePath() + "]\n"
        + "safety: {max_unavailable: 50%, max_unavailable_gpus: 50%, rate_limit: 100/1h, breaker: {nodes: 4, window: 10m}}\n"
        + "loop: {interval: 200ms, retry_delay: 200ms}\n"
        // A sweep of gpu-node-1, idle until its XID: the episode that opens there deletes its Job.
        + "sweeps: [{name: idle-diag, every: 1h, playbook: gpu-sweep, select: \"kubernetes.io/hostname=gpu-node-1\"}]\n"
        + "leader_election: {enabled: true, namespace: " + NAMESPACE + ", lease: gpu-remediator}\n");
    JumpClock clock = new JumpClock();
    try (RunningService service = RunningService.ready(config, KubeApi.of(server.client()), clock, Optional.of(TOKEN))) {
      // The real API server answers 409 when the node changed since the informer saw it; the service
      // then reads the node fresh (get) and writes again.
      server.mock().expect().put().withPath("/api/v1/nodes/gpu-node-1").andReturn(409, new StatusBuilder()
          .withStatus("Failure").withReason("Conflict").withCode(409).withMessage("Operation cannot be fulfilled on nodes"
              + " \"gpu-node-1\": the object has been modified; please apply your changes to the latest version and try again")
          .build()).once();
      await().atMost(Duration.ofSeconds(20)).until(() -> !setup.batch().v1().jobs().inNamespace(NAMESPACE)
          .withLabel("gpu-remediator.io/sweep").list().getItems().isEmpty());
      Alert xid = Alerts.xid("gpu-node-1", "79");
      assertThat(service.post(xid)).contains("actions_applied");
      // The drain: the budget refuses the eviction until the timeout, then the pod is deleted.
      await().atMost(Duration.ofSeconds(20)).until(() -> server.evictionRequests() > 0);
      clock.jump(Duration.ofMinutes(31));
      await().atMost(Duration.ofSeconds(20))
          .until(() -> setup.pods().inNamespace("ml-training").withName("trainer-0").get() == null);
      // The loop records the drain's end in a write of its own after deleting the pod: resolve once it has.
      await().atMost(Duration.ofSeconds(20)).until(() -> service.get("/api/v1/nodes").body().contains("\"stage\":\"drained\""));
      assertThat(service.post(Alerts.resolved(xid))).contains("resolved_actions_applied");
      // Diagnostics: the Job fails (its pod's log is read) and the episode escalates; a human releases the node.
      await().atMost(Duration.ofSeconds(20)).until(() -> !setup.batch().v1().jobs().inNamespace(NAMESPACE)
          .withLabel("gpu-remediator.io/step", "diagnose").list().getItems().isEmpty());
      Job job = setup.batch().v1().jobs().inNamespace(NAMESPACE).withLabel("gpu-remediator.io/step", "diagnose").list()
          .getItems().get(0);
      setup.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("diag-0")
          .withLabels(Map.of("job-name", job.getMetadata().getName())).endMetadata().withNewSpec()
          .withNodeName("gpu-node-1").endSpec().build()).create();
      server.log(NAMESPACE, "diag-0", "GPU 3: Fail");
      job.setStatus(new JobStatusBuilder().addNewCondition().withType("Failed").withStatus("True")
          .withReason("BackoffLimitExceeded").endCondition().build());
      setup.batch().v1().jobs().inNamespace(NAMESPACE).resource(job).updateStatus();
      await().atMost(Duration.ofSeconds(20)).until(() -> "true".equals(
          setup.nodes().withName("gpu-node-1").get().getMetadata().getLabels().get("gpu-remediator.io/needs-human")));
      assertThat(service.postJson("/api/v1/nodes/gpu-node-1/release", "{\"reason\": \"GPU replaced\"}").body()).contains("released_by_human");
      // Repairs: a GPU reset on one node and a reboot (by Job) on another, each diagnosed and returned to service; on a
      // DRA node, one GPU fenced (its pod evicted by the device taint controller), reset, diagnosed and unfenced.
      setup.nodes().withName("gpu-node-5").edit(n -> {
        n.getMetadata().getLabels().put("nvidia.com/gpu.deploy.dra-driver", "true");
        return n;
      });
      DraObjects.slice(setup, "gpu-node-5", 8);
      DraObjects.podHolding(setup, "ml-training", "trainer-5", "gpu-node-5", 2);
      DraObjects.podHolding(setup, "ml-training", "server-6", "gpu-node-5", 6); // its claim is read: another GPU's
      Alert fenced = Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", "fd5", Map.of("node", "gpu-node-5", "gpu", "2",
          "UUID", DraObjects.uuid("gpu-node-5", 2), "xid", "48", "source", "dcgm", "recommended_action", "reset_gpu",
          "severity", "critical", "remediate", "true"));
      assertThat(service.post(Alerts.xid("gpu-node-3", "48", "reset_gpu"), Alerts.xid("gpu-node-4", "79", "reboot"), fenced))
          .contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> DraObjects.rules(setup).size() == 1);
      // A human deletes gpu-node-3's reset Job: the loop's watch no longer has it, so the look reads it from the API
      // server (a get), finds it gone and fails the reset over to gpu-xid-reboot, as gpu-node-4's.
      Jobs.delete(setup, "gpu_reset", "gpu-node-3");
      Jobs.complete(setup, "gpu_reset");
      for (int i = 0; i < 2; i++) {
        Jobs.complete(setup, "collect"); // each reboot's evidence first
        String rebooted = Jobs.complete(setup, "reboot").getSpec().getTemplate().getSpec().getNodeName();
        Nodes.booted(setup, rebooted, rebooted + "-boot-2", true);
      }
      Jobs.complete(setup, "diagnose");
      Jobs.complete(setup, "diagnose");
      Jobs.complete(setup, "diagnose");
      await().atMost(Duration.ofSeconds(20)).until(() -> Stream.of("gpu-node-3", "gpu-node-4")
          .noneMatch(n -> Boolean.TRUE.equals(setup.nodes().withName(n).get().getSpec().getUnschedulable()))
          && DraObjects.rules(setup).isEmpty());
      // Another GPU of gpu-node-5 fenced (by the driver's recovery action: the XID playbook is in its cooldown there),
      // and its rule deleted by a human: the watch no longer has it, so the look reads it from the API server (a get)
      // and ends the episode as a human override.
      Alert again = Alerts.alert(AlertStatus.FIRING, "GpuRecoveryActionRequired", "fd5-3", Map.of("node", "gpu-node-5",
          "gpu", "3", "UUID", DraObjects.uuid("gpu-node-5", 3), "action_code", "2", "source", "dcgm",
          "recommended_action", "reset_gpu",
          "severity", "critical", "remediate", "true"));
      assertThat(service.post(again)).contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> DraObjects.rules(setup).size() == 1);
      setup.genericKubernetesResources(DraObjects.RULES).withName("gpu-remediator.gpu-node-5.gpu-3").delete();
      await().atMost(Duration.ofSeconds(20)).until(() -> service.get("/api/v1/decisions?limit=1000").body()
          .contains("DeviceTaintRule gpu-remediator.gpu-node-5.gpu-3 fencing GPU"));
      Alert[] storm = IntStream.range(0, 5).mapToObj(i -> Alerts.xid("gpu-node-" + i, "48")).toArray(Alert[]::new);
      assertThat(service.post(storm)).contains("breaker_open");
      // Refusal Events and the breaker's announcement are written off the webhook path: wait until both were sent.
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        sent.addAll(drain());
        // Node Events: quarantine, release and one refusal; the ConfigMap's: the breaker opening.
        return sent.stream().filter(r -> r.getPath().equals("/api/v1/namespaces/default/events")).count() >= 3
            && sent.stream().anyMatch(r -> r.getPath().equals("/api/v1/namespaces/" + NAMESPACE + "/events"));
      });
    }
    sent.addAll(drain());
    Set<Call> calls = new TreeSet<>();
    for (RecordedRequest r : sent) {
      if (!SETUP_AGENT.equals(r.getHeader("User-Agent"))) {
        calls.add(call(r));
      }
    }

    Map<String, Set<String>> granted = Map.of("ClusterRole", grants(Path.of("../deploy/base/clusterrole.yaml"), "ClusterRole"),
        "Role", grants(Path.of("../deploy/base/role.yaml"), "Role"));
    Set<String> used = new TreeSet<>();
    Set<String> ungranted = new TreeSet<>();
    for (Call c : calls) {
      boolean byClusterRole = granted.get("ClusterRole").contains(c.grant());
      boolean byRole = NAMESPACE.equals(c.namespace()) && granted.get("Role").contains(c.grant());
      if (byClusterRole) {
        used.add("ClusterRole " + c.grant());
      }
      if (byRole) {
        used.add("Role " + c.grant());
      }
      if (!byClusterRole && !byRole) {
        ungranted.add(c.grant() + (c.namespace() == null ? "" : " in namespace " + c.namespace()));
      }
    }
    Set<String> unused = new TreeSet<>();
    granted.forEach((kind, grants) -> grants.forEach(g -> {
      if (!used.contains(kind + " " + g)) {
        unused.add(kind + " " + g);
      }
    }));
    assertThat(ungranted).as("calls the service makes that deploy/base does not grant (calls: %s)", calls).isEmpty();
    assertThat(unused).as("grants in deploy/base that no call of the service uses (calls: %s)", calls).isEmpty();
  }

  /**
   * deploy/karpenter's and deploy/cluster-api's ClusterRoles against the calls their replacements make: the whole service
   * replaces four nodes, one through Karpenter and three through Cluster API (a Machine its annotations name, one found
   * by its nodeRef, one annotated for its MachineHealthCheck); each overlay must grant exactly the calls to its group.
   */
  @Test
  void eachProviderOverlayGrantsExactlyTheCallsOfItsReplacements() throws Exception {
    server = EmulatedApiServer.start();
    KubernetesClient setup = new KubernetesClientBuilder().withConfig(new ConfigBuilder(server.client().getConfiguration())
        .withUserAgent(SETUP_AGENT).build()).build();
    IntStream.range(0, 6).forEach(i -> setup.nodes().resource(Nodes.gpu("gpu-node-" + i, "10.0.0." + (i + 1))).create());
    String claim = Provisioners.nodeClaim(setup, "gpu-node-0", "");
    Provisioners.machine(setup, "team-a", "gpu-md-0-aaaaa", "gpu-node-1", Optional.of("gpu-md-0-7f9c"));
    Provisioners.machine(setup, "team-a", "gpu-md-0-bbbbb", "gpu-node-2", Optional.of("gpu-md-0-7f9c"), false);
    Provisioners.machine(setup, "team-b", "gpu-md-1-ccccc", "gpu-node-3", Optional.of("gpu-md-1-1a2b"));
    Path playbooks = Files.createDirectories(dir.resolve("playbooks"));
    Files.writeString(playbooks.resolve("replace.yaml"), PROVIDER_PLAYBOOKS);
    Tokens.write(dir, TOKEN);
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "listen: 127.0.0.1:0\nauth: {webhook_token_file: token, operator_token_file: operator-token, ledger_key_file: ledger-key}\nplaybooks: [" + playbooks + "]\n"
        + "safety: {max_unavailable: 100%, rate_limit: 100/1h, breaker: {nodes: 10, window: 10m},"
        + " replace_rate_limit: 10/24h}\n"
        + "loop: {interval: 200ms, retry_delay: 200ms}\n"
        + "leader_election: {enabled: false}\n"
        + "cloud: {karpenter: {}, cluster_api: {}}\n");
    List<RecordedRequest> sent = new ArrayList<>();
    try (RunningService service = RunningService.ready(config, KubeApi.of(server.client()), new JumpClock(),
        Optional.of(TOKEN))) {
      assertThat(service.post(alert("ReplaceThroughKarpenter", "gpu-node-0"), alert("ReplaceThroughClusterApi", "gpu-node-1"),
          alert("ReplaceThroughClusterApi", "gpu-node-2"), alert("RemediateThroughClusterApi", "gpu-node-3")))
          .contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> Provisioners.nodeClaim(setup, claim).map(c -> c.getMetadata().getDeletionTimestamp() != null).orElse(true)
            && Provisioners.machine(setup, "team-a", "gpu-md-0-aaaaa").map(m -> m.getMetadata().getDeletionTimestamp() != null)
                .orElse(true)
            && Provisioners.machine(setup, "team-a", "gpu-md-0-bbbbb").map(m -> m.getMetadata().getDeletionTimestamp() != null)
                .orElse(true)
            && Provisioners.machine(setup, "team-b", "gpu-md-1-ccccc").map(m -> m.getMetadata().getAnnotations() != null
                && m.getMetadata().getAnnotations().containsKey("cluster.x-k8s.io/remediate-machine")).orElse(false)
            // each step has looked at what it asked of while the node goes
            && server.requestLog().stream().filter(r -> r.matches("GET .*/nodeclaims/[^/?]+")).count() >= 1
            && server.requestLog().stream().filter(r -> r.matches("GET .*/machines/[^/?]+")).count() >= 3);
    }
    sent.addAll(drain());
    Set<Call> calls = new TreeSet<>();
    for (RecordedRequest r : sent) {
      if (!SETUP_AGENT.equals(r.getHeader("User-Agent")) && r.getPath().startsWith("/apis/")) {
        Call c = call(r);
        if (c.group().equals("karpenter.sh") || c.group().equals("cluster.x-k8s.io")) {
          calls.add(c);
        }
      }
    }
    for (String[] overlay : new String[][] {{"karpenter", "karpenter.sh"}, {"cluster-api", "cluster.x-k8s.io"}}) {
      Set<String> granted = grants(Path.of("../deploy/" + overlay[0] + "/clusterrole.yaml"), "ClusterRole");
      Set<String> used = new TreeSet<>();
      calls.stream().filter(c -> c.group().equals(overlay[1])).forEach(c -> used.add(c.grant()));
      assertThat(used).as("deploy/%s: the calls its replacements make (calls: %s)", overlay[0], calls)
          .isEqualTo(granted);
    }
  }

  private static Alert alert(String name, String node) {
    return Alerts.alert(AlertStatus.FIRING, name, "fp" + Integer.toHexString((name + node).hashCode()),
        Map.of("node", node, "severity", "critical", "remediate", "true"));
  }

  private List<RecordedRequest> drain() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(200, TimeUnit.MILLISECONDS)) != null) {
      out.add(r);
    }
    return out;
  }

  /** The RBAC permission a recorded request needs, as the API server's authorizer would see it. */
  static Call call(RecordedRequest r) {
    URI uri = URI.create(r.getPath());
    String path = uri.getPath();
    String query = uri.getQuery() == null ? "" : uri.getQuery();
    String group;
    String namespace;
    String resource;
    String name;
    String subresource;
    Matcher core = CORE.matcher(path);
    Matcher grouped = GROUPED.matcher(path);
    if (core.matches()) {
      group = "";
      namespace = core.group(1);
      resource = core.group(2);
      name = core.group(3);
      subresource = core.group(4);
    } else if (grouped.matches()) {
      group = grouped.group(1);
      namespace = grouped.group(2);
      resource = grouped.group(3);
      name = grouped.group(4);
      subresource = grouped.group(5);
    } else {
      throw new AssertionError("not a resource request: " + r.getMethod() + " " + r.getPath());
    }
    String verb = switch (r.getMethod()) {
      case "GET" -> name != null ? "get" : query.contains("watch=true") ? "watch" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> name != null ? "delete" : "deletecollection";
      default -> throw new AssertionError("unexpected method " + r.getMethod() + " " + r.getPath());
    };
    return new Call(group, subresource == null ? resource : resource + "/" + subresource, verb, namespace);
  }

  /** Every "group resource verb" a Role or ClusterRole of {@code file} grants. */
  @SuppressWarnings("unchecked")
  static Set<String> grants(Path file, String kind) throws Exception {
    Set<String> out = new TreeSet<>();
    for (Object doc : new Yaml().loadAll(Files.readString(file))) {
      Map<String, Object> object = (Map<String, Object>) doc;
      if (!kind.equals(object.get("kind"))) {
        continue;
      }
      for (Map<String, Object> rule : (List<Map<String, Object>>) object.get("rules")) {
        for (String g : (List<String>) rule.get("apiGroups")) {
          for (String res : (List<String>) rule.get("resources")) {
            for (String verb : (List<String>) rule.get("verbs")) {
              out.add((g.isEmpty() ? "core" : g) + " " + res + " " + verb);
            }
          }
        }
      }
    }
    assertThat(out).as(file + " grants something").isNotEmpty();
    return out;
  }
}
