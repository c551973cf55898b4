package io.gpuremediator.episode;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.device.Devices;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.kube.Fabric8Cluster;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.LoadResult;
import io.gpuremediator.playbook.load.PlaybookLoader;
import io.gpuremediator.safety.GpuBudget;
import io.gpuremediator.safety.GpuCounts;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.safety.StepLimits;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.Tokens;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.workload.Workloads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The webhook's engine and the loop over one emulated API server, driven look by look: each
 * {@link #look} first waits until the node cache shows the node as the API server has it, then advances
 * the node's episodes once, on the test's thread, with a clock the test moves.
 */
final class ClosedLoopHarness implements AutoCloseable {
  static final String PLAYBOOKS = Playbooks.quarantining("gpu-xid", """
            - drain: {mode: %s, timeout: 30m, grace_period: 1m}
            - event: {reason: GpuDrained, message: "drained {{ node }} for XID {{ labels.xid }}"}
          on_resolved:
            - diagnose: {image: "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", command: [dcgmi, diag, -r, "2", -j],
                         timeout: 30m%s}
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
        - name: gpu-needs-human
          match: ['alertname="NeverFires"']
          actions:
            - label: {key: gpu-remediator.io/needs-human, value: "true"}
      """);

  /** Stands for the shipped playbooks where a test names its playbooks' YAML. */
  private static final String SHIPPED = "# deploy/playbooks";

  final EmulatedApiServer server;
  final KubernetesClient client;
  final MutableClock clock;
  private final boolean ownsServer;
  /** The instances restarted over this one's server: stopped before it closes the server. */
  private final List<ClosedLoopHarness> restarts = new CopyOnWriteArrayList<>();
  private boolean stopped;
  final List<Decision> decisions = new CopyOnWriteArrayList<>();
  /** The episodes ended, as the duration metric labels them: "playbook outcome closed_by". */
  final List<String> ended = new CopyOnWriteArrayList<>();
  /** The repairs that passed, as the repair metric labels them: "playbook step". */
  final List<String> repaired = new CopyOnWriteArrayList<>();
  private final DecisionListener listener = new DecisionListener() {
    @Override
    public void decided(Decision d) {
      decisions.add(d);
    }

    @Override
    public void episodeEnded(String playbook, String outcome, String closedBy, double seconds) {
      ended.add(playbook + " " + outcome + " " + closedBy);
    }

    @Override
    public void repaired(String playbook, String step, double seconds) {
      repaired.add(playbook + " " + step);
    }
  };
  final Fabric8Cluster cluster;
  final RemediationEngine engine;
  final EpisodeLoop loop;
  /** The devices the loop reads (its ResourceSlice watch). */
  final Devices devices;
  /** The pods and Jobs the loop reads. */
  final Workloads workloads;
  final HumanControls controls;
  final PlaybookSet playbooks;
  private final Set<String> replaceProviders;
  private final Optional<PreflightSettings> preflight;
  private final Fencing fencing;

  /**
   * How the harness fences one GPU: the DRA driver the loop fences through, and the GPU limits the safety gate would
   * build from {@code safety.max_unavailable_gpus} and {@code safety.max_fenced_per_node}.
   */
  record Fencing(DraScope dra, CountOrPercent maxUnavailableGpus, int maxFencedPerNode) {
    /** NVIDIA's DRA driver; 10% of the selected nodes' GPUs; one GPU a node. */
    static final Fencing DEFAULT = new Fencing(DraScope.DEFAULT, SafetyLimits.DEFAULT_MAX_UNAVAILABLE_GPUS,
        SafetyLimits.DEFAULT_MAX_FENCED_PER_NODE);

    Fencing(String draDriver, CountOrPercent maxUnavailableGpus, int maxFencedPerNode) {
      this(DraScope.of(draDriver), maxUnavailableGpus, maxFencedPerNode);
    }

    /** The fleet's step limits with these GPU limits over {@code selected}, counting GPUs as the service does. */
    StepLimits.Fleet fleet(ReplaceLimit replacements, Supplier<List<NodeInfo>> selected, Devices devices) {
      return new StepLimits.Fleet(replacements, new GpuBudget(LoopSettings.settle(Duration.ofSeconds(1)),
          maxUnavailableGpus, maxFencedPerNode, selected, GpuCounts.publishedFirst(n -> devices.publishedGpus(n,
          dra.driver()))));
    }
  }

  ClosedLoopHarness(Path dir, String drainMode, int maxDraining) {
    this(dir, drainMode, maxDraining, true);
  }

  ClosedLoopHarness(Path dir, String drainMode, int maxDraining, boolean escalate) {
    this(dir, String.format(PLAYBOOKS, drainMode, escalate ? ", on_fail: gpu-needs-human" : ""), maxDraining,
        EmulatedApiServer.start(), new MutableClock(Alerts.STARTS.plusSeconds(60)), true, OutboundPorts.NONE, ReplaceLimit.NONE,
        Set.of(), Optional.empty(), List.of(), Fencing.DEFAULT);
  }

  /** These playbooks, with these ports to the world outside Kubernetes. */
  ClosedLoopHarness(Path dir, String playbooksYaml, OutboundPorts outside) {
    this(dir, playbooksYaml, outside, new MutableClock(Alerts.STARTS.plusSeconds(60)));
  }

  /** The same, on this clock (a real Alertmanager needs one near its own). */
  ClosedLoopHarness(Path dir, String playbooksYaml, OutboundPorts outside, MutableClock clock) {
    this(dir, playbooksYaml, 1, EmulatedApiServer.start(), clock, true, outside, ReplaceLimit.NONE, Set.of(),
        Optional.empty(), List.of(), Fencing.DEFAULT);
  }

  /** These playbooks, with the replace providers through the Kubernetes API that the config says are deployed. */
  ClosedLoopHarness(Path dir, String playbooksYaml, OutboundPorts outside, Set<String> replaceProviders) {
    this(dir, playbooksYaml, outside, ReplaceLimit.NONE, replaceProviders);
  }

  /** The same, with this replacement limit. */
  ClosedLoopHarness(Path dir, String playbooksYaml, OutboundPorts outside, ReplaceLimit replacements,
      Set<String> replaceProviders) {
    this(dir, playbooksYaml, 1, EmulatedApiServer.start(), new MutableClock(Alerts.STARTS.plusSeconds(60)), true, outside,
        replacements, replaceProviders, Optional.empty(), List.of(), Fencing.DEFAULT);
  }

  /** These playbooks, with the pre-flight gate. */
  ClosedLoopHarness(Path dir, String playbooksYaml, PreflightSettings preflight) {
    this(dir, playbooksYaml, 1, EmulatedApiServer.start(), new MutableClock(Alerts.STARTS.plusSeconds(60)), true,
        OutboundPorts.NONE, ReplaceLimit.NONE, Set.of(), Optional.of(preflight), List.of(), Fencing.DEFAULT);
  }

  /** These playbooks, deferring to another repairer on nodes that show these signs ({@code defer_to}). */
  ClosedLoopHarness(Path dir, String playbooksYaml, List<DeferRule> deferTo) {
    this(dir, playbooksYaml, 1, EmulatedApiServer.start(), new MutableClock(Alerts.STARTS.plusSeconds(60)), true,
        OutboundPorts.NONE, ReplaceLimit.NONE, Set.of(), Optional.empty(), deferTo, Fencing.DEFAULT);
  }

  /** These playbooks, fencing GPUs with these limits. */
  ClosedLoopHarness(Path dir, String playbooksYaml, Fencing fencing) {
    this(dir, playbooksYaml, 1, EmulatedApiServer.start(), new MutableClock(Alerts.STARTS.plusSeconds(60)), true,
        OutboundPorts.NONE, ReplaceLimit.NONE, Set.of(), Optional.empty(), List.of(), fencing);
  }

  /** A second instance of the service over the same API server and clock: a restart, or a new leader. */
  ClosedLoopHarness restarted(Path dir, String drainMode) {
    return restart(new ClosedLoopHarness(dir, String.format(PLAYBOOKS, drainMode, ", on_fail: gpu-needs-human"), 1, server,
        clock, false, OutboundPorts.NONE, ReplaceLimit.NONE, replaceProviders, preflight, List.of(), fencing));
  }

  /** The same, with these playbooks and ports. */
  ClosedLoopHarness restarted(Path dir, String playbooksYaml, OutboundPorts outside) {
    return restarted(dir, playbooksYaml, outside, ReplaceLimit.NONE);
  }

  /** The same, with this replacement limit. */
  ClosedLoopHarness restarted(Path dir, String playbooksYaml, OutboundPorts outside, ReplaceLimit replacements) {
    return restart(new ClosedLoopHarness(dir, playbooksYaml, 1, server, clock, false, outside, replacements,
        replaceProviders, preflight, List.of(), fencing));
  }

  /** The same, deferring to another repairer on nodes that show these signs. */
  ClosedLoopHarness restarted(Path dir, String playbooksYaml, List<DeferRule> deferTo) {
    return restart(new ClosedLoopHarness(dir, playbooksYaml, 1, server, clock, false, OutboundPorts.NONE, ReplaceLimit.NONE,
        replaceProviders, preflight, deferTo, fencing));
  }

  private ClosedLoopHarness restart(ClosedLoopHarness next) {
    restarts.add(next);
    return next;
  }

  private ClosedLoopHarness(Path dir, String playbooksYaml, int maxDraining, EmulatedApiServer server,
      MutableClock clock, boolean fresh, OutboundPorts outside, ReplaceLimit replacements, Set<String> replaceProviders,
      Optional<PreflightSettings> preflight, List<DeferRule> deferTo, Fencing fencing) {
    this.server = server;
    this.fencing = fencing;
    this.replaceProviders = replaceProviders;
    this.preflight = preflight;
    this.client = server.client();
    this.clock = clock;
    this.ownsServer = fresh;
    if (fresh) {
      Nodes.createFleet(client, 4);
    }
    playbooks = load(dir, playbooksYaml);
    cluster = KubeApi.of(client).cluster("test", LabelSelector.parse("").value(),
        Tokens.LEDGER_KEY.getBytes(StandardCharsets.UTF_8));
    cluster.start();
    int nodes = client.nodes().list().getItems().size();
    await().atMost(Duration.ofSeconds(20)).until(() -> cluster.isReady() && cluster.nodes().size() == nodes);
    LabelSelector selector = LabelSelector.parse("nvidia.com/gpu.present=true").value();
    devices = KubeApi.of(client).devices();
    workloads = KubeApi.of(client).workloads();
    Supplier<List<NodeInfo>> selected = () -> cluster.nodes().stream().filter(n -> selector.matches(n.labels())).toList();
    loop = new EpisodeLoop(cluster, workloads, devices, () -> playbooks, selected,
        new LoopSettings(Duration.ofSeconds(1), Duration.ofSeconds(5), new CountOrPercent(maxDraining, false), "gpu-remediator",
            replaceProviders, preflight, List.of(), 2, deferTo, fencing.dra()),
        () -> true, listener, clock, outside, fencing.fleet(replacements, selected, devices));
    engine = EngineBuilder.of(() -> playbooks, cluster, new NodeResolver(List.of("node"), selector, cluster), clock)
        .listener(listener).loop(loop).deferTo(deferTo).build();
    controls = new HumanControls(loop, cluster, () -> playbooks);
  }

  /** The playbooks deploy/playbooks ships, with these ports. */
  static ClosedLoopHarness shipped(Path dir, OutboundPorts outside) {
    return new ClosedLoopHarness(dir, SHIPPED, outside);
  }

  private static PlaybookSet load(Path dir, String yaml) {
    try {
      Path file = dir.resolve("playbooks.yaml");
      if (yaml.equals(SHIPPED)) {
        file = Path.of("../deploy/playbooks");
      } else {
        Files.writeString(file, yaml);
      }
      LoadResult r = PlaybookLoader.load(List.of(file));
      if (!r.isValid()) {
        throw new IllegalStateException(r.errors().toString());
      }
      return r.set();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A running pod on the node. */
  void pod(String namespace, String name, String node, Map<String, String> labels) {
    Nodes.runningPod(client, namespace, name, node, labels);
  }

  Decision fire(Alert alert) {
    return engine.decide(alert);
  }

  /** Waits for the cache to show the node as the server has it (or, deleted, not at all), then advances its episodes once. */
  void look(String node) {
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      Node onServer = client.nodes().withName(node).get();
      return onServer == null ? cluster.node(node).isEmpty()
          : cluster.node(node).map(n -> n.resourceVersion().equals(onServer.getMetadata().getResourceVersion())).orElse(false);
    });
    loop.advance(node);
  }

  /** Looks at the node until its episode reaches {@code stage} (at most {@code looks} looks). */
  Episode lookUntil(String node, Stage stage, int looks) {
    for (int i = 0; i < looks; i++) {
      look(node);
      Episode e = episode(node);
      if (e != null && e.progress().stage() == stage) {
        return e;
      }
    }
    throw new AssertionError("node " + node + " did not reach " + stage + " in " + looks + " looks; episode: " + episode(node));
  }

  /** The node's only active episode as the API server has it (null when none). */
  Episode episode(String node) {
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      String server = client.nodes().withName(node).get().getMetadata().getResourceVersion();
      return cluster.node(node).map(n -> n.resourceVersion().equals(server)).orElse(false);
    });
    NodeInfo n = cluster.node(node).orElseThrow();
    return n.ledger().episodes().values().stream().findFirst().orElse(null);
  }

  NodeInfo node(String node) {
    episode(node);
    return cluster.node(node).orElseThrow();
  }

  /** The one diagnostic Job in the namespace. */
  Job job() {
    List<Job> jobs = client.batch().v1().jobs().inNamespace("gpu-remediator").list().getItems();
    if (jobs.size() != 1) {
      throw new AssertionError("expected one diagnostic job, found " + jobs.size());
    }
    return jobs.get(0);
  }

  /** The simulated Job controller marks the Job with a condition (Complete or Failed). */
  void finishJob(String type, String reason) {
    finish(job(), type, reason);
  }

  /** The one unfinished Job of a step kind ({@code gpu-remediator.io/step}) in the namespace. */
  Job job(String step) {
    List<Job> jobs = jobs(step).stream().filter(j -> j.getStatus() == null || j.getStatus().getConditions() == null
        || j.getStatus().getConditions().isEmpty()).toList();
    if (jobs.size() != 1) {
      throw new AssertionError("expected one unfinished " + step + " job, found " + jobs.size());
    }
    return jobs.get(0);
  }

  /** Every Job of a step kind in the namespace, finished or not. */
  List<Job> jobs(String step) {
    return client.batch().v1().jobs().inNamespace("gpu-remediator").withLabel("gpu-remediator.io/step", step).list()
        .getItems();
  }

  /** The simulated Job controller marks the step's Job with a condition (Complete or Failed). */
  void finishJob(String step, String type, String reason) {
    finish(job(step), type, reason);
  }

  /** The simulated Job controller marks this Job with a condition (Complete or Failed). */
  void finish(Job job, String type, String reason) {
    job.setStatus(new JobStatusBuilder()
        .withConditions(new JobConditionBuilder().withType(type).withStatus("True").withReason(reason).build()).build());
    client.batch().v1().jobs().inNamespace("gpu-remediator").resource(job).updateStatus();
  }

  /** The Events with this reason, as the API server has them. */
  List<Event> events(String reason) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> reason.equals(e.getReason())).toList();
  }

  /** The Events telling a pod of {@code namespace} why it was evicted or stopped, as a workload's owner reads them. */
  List<Event> podNotices(String namespace) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> "GpuRemediatorEvicted".equals(e.getReason()) && "Pod".equals(e.getInvolvedObject().getKind())).toList();
  }

  List<Decision> decisions(Reason reason) {
    return decisions.stream().filter(d -> d.reason() == reason).toList();
  }

  /** Closes instances of the service over one API server, newest first: the first owns the server, the rest stop. */
  static void closeAll(List<ClosedLoopHarness> harnesses) {
    for (int i = harnesses.size() - 1; i >= 0; i--) {
      if (i == 0) {
        harnesses.get(i).close();
      } else {
        harnesses.get(i).stop();
      }
    }
  }

  /** Sets the node's {@code spec.providerID} on the API server. */
  void providerId(String node, String id) {
    client.nodes().withName(node).edit(n -> {
      n.getSpec().setProviderID(id);
      return n;
    });
  }

  /** Stops this instance (its loop, node cache and client); the API server stays. */
  /** Stops this instance (once): its loop, its cluster adapter and its client; the server stays up. */
  synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    loop.close();
    cluster.close();
    client.close();
  }

  /** Stops the instances restarted over this one, newest first, then this one, then its server if it made it. */
  @Override
  public void close() {
    for (int i = restarts.size() - 1; i >= 0; i--) {
      restarts.get(i).close();
    }
    stop();
    if (ownsServer) {
      server.close();
    }
  }
}
