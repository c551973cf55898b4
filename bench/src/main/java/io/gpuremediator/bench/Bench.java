package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.RemediatorService;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code make bench}: runs every benchmark and prints the figures. For throughput, the server under
 * test runs in a child JVM pinned to core 0 and the load generator in another pinned to core 1; the
 * latency and memory runs use the whole machine.
 *
 * <p>Arguments: {@code REMEDIATOR_JAR PLAYBOOKS_DIR WORK_DIR [PROJECT_ROOT]}.
 */
public final class Bench {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  static final int STORM = 200;
  /** Limits that refuse nothing in these runs: they measure the path that acts, not the limits. */
  static final String WIDE_LIMITS = "{max_unavailable: 100%, rate_limit: 100000/1h, breaker: {nodes: 100000, window: 10m}}";
  /** The load generator is one client sending as fast as it can: the per-client HTTP limits are lifted. */
  static final String LOAD_LIMITS = "limits: {client_rate: 100000/1s, webhook_queue: 1024}\n";

  private Bench() {}

  /** Runs the benchmarks. */
  public static void main(String[] args) throws Exception {
    MockApiServer.quiet();
    Path jar = Path.of(args[0]);
    Path playbooks = Path.of(args[1]);
    Path work = Files.createDirectories(Path.of(args[2]));
    // The services started in this JVM log every decision, as in production, but to a file rather than over the figures.
    System.setErr(new PrintStream(new FileOutputStream(work.resolve("in-process.log").toFile()), true));
    try {
      sections(jar, playbooks, work, Path.of(args.length > 3 ? args[3] : "."));
      if (!FAILED.isEmpty()) {
        System.out.println("\nbench: every section ran; these failed, their figures NOT MET (stack traces in "
            + work.resolve("in-process.log") + "): " + String.join(", ", FAILED));
        System.exit(1);
      }
      System.exit(0); // the in-process servers' threads would keep the JVM alive
    } catch (Exception e) {
      e.printStackTrace();
      System.out.println("\nbench FAILED: " + e.getMessage() + " (stack trace in " + work.resolve("in-process.log") + ")");
      System.exit(1);
    }
  }

  private static void sections(Path jar, Path playbooks, Path work, Path root) throws Exception {
    String payload = Payloads.xidStorm(STORM);
    System.out.printf(Locale.ROOT, "machine: CPUs %s (%s), %s %s; payload: %d alerts, %d bytes%n",
        Files.readString(Path.of("/sys/devices/system/cpu/online")).strip(), cpuModel(), System.getProperty("java.vm.name"),
        System.getProperty("java.version"), STORM, payload.length());
    System.out.println(Calibration.line());
    System.out.printf(Locale.ROOT, "the latency sections' cluster (all but throughput, fault-to-quarantine, repair, rule-cost,"
        + " scale and memory): %,d nodes in the emulated API server, %,d of them GPU nodes the service selects"
        + " (-Dbench.fleet, -Dbench.selected)%n", MockApiServer.FLEET, MockApiServer.SELECTED);

    section("throughput", () -> {
      System.out.println("\n== dry-run decision throughput (server JVM alone on core 0, load generator JVM on core 1,"
          + " 8 requests in flight, 10 s warm-up (the JIT shares the one core), 15 s measured)");
      double bare = throughput("bare", playbooks, work, payload);
      double ours = throughput("remediator", playbooks, work, payload);
      System.out.printf(Locale.ROOT, "remediator decides %.0f%% of the bare parse ceiling; target >= 50%% -> %s%n",
          100 * ours / bare, ours >= 0.5 * bare ? "MET" : "NOT MET");
      profile(work.resolve("remediator.jfr"), root.resolve("bench/results/throughput"),
          "dry-run decisions of 200-alert webhooks, server JVM on one core");
    });

    section("latency", () -> {
      System.out.println("\n== webhook-to-taint latency after 1,500 warm-up webhooks: POST of one firing alert until its 200 (answered once the"
          + " node is tainted and cordoned; the taint is then checked), each followed, once the episode's drain is done, by a"
          + " floor sample (service, mock API and client in one JVM on both cores; sequential)");
      latency(playbooks, work);
      profile(latencyProfile, root.resolve("bench/results/latency"), "webhook to taint, one alert at a time (service, mock"
          + " API server and client in one JVM)");
    });

    section("latency-under-load", () -> {
      System.out.println("\n== webhook to cordon under load: " + LatencyUnderLoad.PER_SECOND + " firing alerts a second on"
          + " distinct nodes of " + String.format(Locale.ROOT, "%,d", MockApiServer.SELECTED) + " selected, their drains,"
          + " GPU resets and diagnostics running behind them, a floor sample halfway between two alerts (service, simulated"
          + " API server with its Job controller and kubelet, and client in one JVM on both cores)");
      Path jfr = work.resolve("under-load.jfr");
      LatencyUnderLoad.run(playbooks, work, jfr);
      profile(jfr, root.resolve("bench/results/latency-under-load"), "webhook to cordon, " + LatencyUnderLoad.PER_SECOND
          + " alerts a second with their drains and Jobs (service, simulated API server and client in one JVM)");
    });

    section("fence", () -> {
      System.out.println("\n== fencing one GPU of a DRA node: webhook to DeviceTaintRule written, seen on a watch, each"
          + " followed by a floor sample as above (service, simulated API server and client in one JVM on both cores;"
          + " sequential)");
      Path jfr = work.resolve("fence.jfr");
      FenceLatency.run(playbooks, work, jfr);
      profile(jfr, root.resolve("bench/results/fence"), "fencing one GPU: webhook to DeviceTaintRule, one at a time (service,"
          + " simulated API server and client in one JVM)");
    });

    section("multi-node", () -> {
      System.out.println("\n== a multi-node event: one webhook naming " + MultiNodeEvent.NODES + " distinct nodes, every limit"
          + " opened (service, simulated API server and client in one JVM on both cores)");
      Path jfr = work.resolve("multi-node.jfr");
      MultiNodeEvent.run(playbooks, work, jfr);
      profile(jfr, root.resolve("bench/results/multi-node"), "one webhook quarantining " + MultiNodeEvent.NODES
          + " nodes under the API throttle (service, mock API server and client in one JVM)");
    });

    section("unknown-nodes", () -> {
      System.out.println("\n== a webhook naming nodes the watch cache does not hold (service, mock API server and client in"
          + " one JVM): its answer never waits on the reads that only name the refusals");
      UnknownNodes.run(playbooks, work);
    });

    section("storm", () -> {
      System.out.println("\n== storm: a 200-alert webhook against the default limits (breaker at 5 nodes),"
          + " decided and answered after 150 warm-up storms (breaker opened, state stored in its ConfigMap after the answer);"
          + " breaker reset between rounds");
      storm(playbooks, work);
      profile(stormProfile, root.resolve("bench/results/storm"), "200-alert storms refused whole (service, mock API server and"
          + " client in one JVM)");
    });

    section("big-storm", () -> {
      System.out.println("\n== a storm of " + BigStorm.NODES + " nodes at once (one webhook) against the default limits, and"
          + " what the fleet state and a node's ledger weigh");
      BigStorm.run(playbooks, work);
    });

    section("fleet-state", () -> {
      System.out.println("\n== the fleet state's work for one webhook (its sighting, the rate limits' counts, its start, pruned"
          + " as it goes) as the state remembers more nodes (in this JVM)");
      FleetStateCost.run();
    });

    section("fault-to-quarantine", () -> {
      System.out.println("\n== fault to quarantine on the whole loop (make demo's pipeline: simulator, Prometheus 1 s scrape and"
          + " evaluation, Alertmanager group timers 1 s, remediator jar, simulated cluster): XID 79 injected to taint seen on a watch");
      FaultToQuarantine.run(root, work);
    });

    section("repair", () -> {
      System.out.println("\n== the remediator's own share of a repair: the shipped ladder in this JVM against the simulated"
          + " cluster (its Job controller and kubelet run the GPU resets, reboots and diagnostics), loop timer 60 s,"
          + " 3 GPU resets and 3 reboots one after another");
      RepairShare.run(playbooks, work);
    });

    section("handoffs", () -> {
      System.out.println("\n== stage handoffs: " + Handoffs.EPISODES + " episodes down the shipped ladder at once through the"
          + " emulated API (service, simulated cluster with its Job controller and kubelet, and the watches that measure, in"
          + " one JVM); from the event that ends a step to the remediator's next write about the node");
      Path jfr = work.resolve("handoffs.jfr");
      Handoffs.run(playbooks, work, jfr);
      profile(jfr, root.resolve("bench/results/handoffs"), Handoffs.EPISODES + " episodes handed from step to step (service,"
          + " simulated cluster and client in one JVM)");
    });

    section("rule-cost", () -> {
      int nodes = Integer.getInteger("bench.nodes", 1000);
      System.out.println("\n== rule cost: Prometheus evaluating rules/*.rules.yml every 30 s over " + nodes + " nodes (2 h of history"
          + " backfilled by promtool, then scraped live at 30 s)");
      RuleCost.run(root, work, nodes);
    });

    section("scale", () -> {
      List<String> flags = Scale.deployedJvmFlags(root);
      long limitMiB = Scale.deployedMemoryLimitMiB(root);
      int cluster = Integer.getInteger("bench.scale.cluster", 100_000);
      System.out.println("\n== scale: `java " + String.join(" ", flags) + " -jar remediator.jar serve` (the image's flags under the"
          + " Deployment's memory limit; dry-run, pinned to core 0) over realistic GPU nodes (60 labels, 20 annotations,"
          + " 5 conditions, 8 GPUs) among as many nodes without GPUs as a " + String.format(Locale.ROOT, "%,d", cluster)
          + "-node cluster has, node_selector nvidia.com/gpu.present=true as deployed; load generator on core 1, 8 requests"
          + " in flight, 10 s warm-up, 15 s measured");
      Scale.Figures small = Scale.run(jar, playbooks, work, 219, 0, flags);
      int half = Integer.getInteger("bench.scale.nodes", 10_000);
      int full = Integer.getInteger("bench.scale.larger", 20_000);
      Scale.Figures large = Scale.run(jar, playbooks, work, half, cluster - half, flags);
      Scale.Figures larger = Scale.run(jar, playbooks, work, full, cluster - full, flags);
      System.out.printf(Locale.ROOT, "ready with %d nodes %.1f s; target < 5 s -> %s%n", small.nodes(), small.readySeconds(),
          small.readySeconds() < 5 ? "MET" : "NOT MET");
      long maxHeapMiB = limitMiB / 2; // -XX:MaxRAMPercentage=50 of the limit
      for (Scale.Figures f : List.of(large, larger)) {
        double readyTarget = f == large ? 15 : 30;
        System.out.printf(Locale.ROOT, "ready with %,d selected of %,d nodes %.1f s; target < %.0f s -> %s%n", f.nodes(),
            f.nodes() + f.others(), f.readySeconds(), readyTarget, f.readySeconds() < readyTarget ? "MET" : "NOT MET");
        System.out.printf(Locale.ROOT, "idle RSS with %,d selected of %,d nodes %d MiB; target < the Deployment's limit, %d MiB"
            + " -> %s%n", f.nodes(), f.nodes() + f.others(), f.rssMiB(), limitMiB, f.rssMiB() < limitMiB ? "MET" : "NOT MET");
        System.out.printf(Locale.ROOT, "heap after full GC with %,d selected %d MiB of the %d MiB the flags allow; target <= 60%%"
            + " (room for a burst's work) -> %s%n", f.nodes(), f.heapMiB(), maxHeapMiB,
            f.heapMiB() <= 0.6 * maxHeapMiB ? "MET" : "NOT MET");
        double ratio = f.alertsPerSecond() / small.alertsPerSecond();
        System.out.printf(Locale.ROOT, "dry-run throughput with %,d selected is %.0f%% of the %d-node figure; target >= 80%% -> %s%n",
            f.nodes(), 100 * ratio, small.nodes(), ratio >= 0.8 ? "MET" : "NOT MET");
      }
      System.out.printf(Locale.ROOT, "heap a selected node costs: %.1f KiB ((heap at %,d - heap at %,d) / %,d; the unselected"
          + " nodes are filtered by the API server and cost nothing); written down in deploy/README.md%n",
          (larger.heapMiB() - large.heapMiB()) * 1024.0 / (full - half), full, half, full - half);
      System.out.printf(Locale.ROOT, "what a selected node costs the heap, by structure ((live bytes at %,d - at %,d) / %,d,"
          + " each after a full GC: jcmd GC.class_histogram):%n", full, half, full - half);
      Scale.perNode(large, larger).forEach(l -> System.out.println("    " + l));
    });

    section("memory", () -> {
      System.out.println("\n== idle resident memory of `java -jar remediator.jar serve` (default JVM flags)");
      idleRss(jar, playbooks, work);
    });
  }

  /** A section's work; it prints its own figures. */
  private interface Body {
    void run() throws Exception;
  }

  /** The sections that failed, in order. */
  private static final List<String> FAILED = new ArrayList<>();

  /**
   * Runs a section if it is selected. One that fails says so, NOT MET, and the next section still runs: a failure of
   * one section (its service never ready again, a step that timed out) never hides the figures of the others.
   */
  private static void section(String name, Body body) {
    if (!runs(name)) {
      return;
    }
    Resyncs.reset();
    try {
      body.run();
    } catch (Exception e) {
      e.printStackTrace();
      FAILED.add(name);
      System.out.println("section " + name + " FAILED, its figures NOT MET: " + e.getMessage());
    }
    String paused = Resyncs.report();
    if (!paused.isEmpty()) {
      System.out.println(name + ": " + paused);
    }
  }

  /** Whether a section runs: all of them, or only those named in {@code -Dbench.only=a,b}. */
  private static boolean runs(String section) {
    String only = System.getProperty("bench.only");
    return only == null || Arrays.asList(only.split(",")).contains(section);
  }

  private static double throughput(String mode, Path playbooks, Path work, String payload) throws Exception {
    Path portFile = work.resolve(mode + ".port");
    Files.deleteIfExists(portFile);
    Path jfr = work.resolve(mode + ".jfr");
    Files.deleteIfExists(jfr);
    // JFR samples the measured part of the run only: the load's 10 s warm-up is over after about 12 s.
    Process server = pinnedJava(0, work.resolve(mode + ".log"), List.of("-XX:StartFlightRecording=delay=13s,duration=10s,"
        + "settings=profile,filename=" + jfr), ThroughputServer.class, mode, portFile.toString(), playbooks.toString());
    try {
      String port = awaitFile(portFile, server);
      Path loadLog = work.resolve(mode + "-load.log");
      Process load = pinnedJava(1, loadLog, List.of(), LoadGenerator.class, port, Integer.toString(STORM), "8", "10", "15");
      if (!load.waitFor(120, TimeUnit.SECONDS) || load.exitValue() != 0) {
        throw new IllegalStateException("load generator failed; see " + loadLog);
      }
      String[] r = Files.readAllLines(loadLog).stream().filter(l -> l.startsWith("RESULT ")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no result in " + loadLog)).split(" ");
      double webhooks = Double.parseDouble(r[1]);
      double alerts = webhooks * STORM;
      System.out.printf(Locale.ROOT, "%-11s %8.0f webhooks/s = %9.0f alerts/s  (%s answered, %s failed)%n",
          mode, webhooks, alerts, r[2], r[3]);
      return alerts;
    } finally {
      stop(server);
    }
  }

  private static Process pinnedJava(int core, Path log, List<String> jvm, Class<?> main, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("taskset", "-c", Integer.toString(core),
        ProcessHandle.current().info().command().orElse("java"), "-Xmx1g"));
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectOutput(log.toFile()).redirectErrorStream(true).start();
  }

  /**
   * Webhook to taint against its floor, in one run: each service sample (POST of one firing alert until its 200,
   * which the service answers once the node is written) alternates with a floor sample, the three calls one quarantine
   * needs made directly by a fabric8 client against the same mock API server (status update, update, Event) on
   * another node of the same kind. Nodes 0..N-1 are the service's, N..2N-1 the floor's.
   */
  private static void latency(Path playbooks, Path work) throws Exception {
    // The target is the steady state: by 1,500 webhooks the decision path is compiled by C2, as in a service that has run
    // a while. Soon after a start it is not yet (profiling C1 code): the first 500 after 200 are printed beside it.
    int early = 200;
    int warmup = 1_500;
    int samples = 500;
    int n = warmup + samples;
    try (MockApiServer api = MockApiServer.fleet();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.client().getConfiguration())
            .withRequestRetryBackoffLimit(0).build()).build()) {
      Path config = work.resolve("latency-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nsafety: " + WIDE_LIMITS + "\n" + LOAD_LIMITS + MockApiServer.SELECTOR);
      try (RemediatorService service = new RemediatorService(ConfigLoader.load(config).config().orElseThrow(), KubeApi.of(client),
          Clock.systemUTC())) {
        int port = awaitReady(service.start());
        List<Double> ms = new ArrayList<>();
        List<Double> floor = new ArrayList<>();
        List<Double> hop = new ArrayList<>();
        List<Double> calls = new ArrayList<>();
        List<Double> quarantines = new ArrayList<>();
        List<Double> earlyMs = new ArrayList<>();
        List<Double> earlyFloor = new ArrayList<>();
        jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        for (int i = 0; i < n; i++) {
          if (i == warmup) {
            recording.start();
          }
          double took = post(port, Payloads.single("firing", i), "\"reason\":\"actions_applied\"");
          if (!tainted(api.client().nodes().withName(MockApiServer.nodeName(i)).get())) {
            throw new IllegalStateException("webhook " + i + " answered actions_applied but its node is not tainted");
          }
          // The episode's background steps (its drain of a node with no pods) end before the floor sample, and the next
          // webhook starts on a quiet server: each sample measures its own calls, not the other's leftovers.
          awaitDrained(api.client(), MockApiServer.nodeName(i));
          double floorTook = LatencyUnderLoad.floorCordon(client, MockApiServer.nodeName(n + i));
          double quarantineTook = floorQuarantine(client, MockApiServer.nodeName(n + i));
          // The hop every webhook makes whatever it decides: one alert no playbook matches, decoded and answered.
          double hopTook = post(port, Payloads.single("firing", i).replace("GpuXidHardwareError", "NoSuchAlert"),
              "\"no_playbook\"");
          if (i >= early && i < early + samples) {
            earlyMs.add(took);
            earlyFloor.add(hopTook + floorTook);
          }
          if (i >= warmup) {
            ms.add(took);
            floor.add(hopTook + floorTook); // what no remediator can avoid: its own HTTP hop and the call that cordons
            calls.add(floorTook);
            hop.add(hopTook);
            quarantines.add(quarantineTook);
          }
        }
        recording.stop();
        Path jfr = work.resolve("latency.jfr");
        recording.dump(jfr);
        recording.close();
        latencyProfile = jfr;
        Samples taint = Samples.of(ms);
        Samples bare = Samples.of(floor);
        Samples soon = Samples.of(earlyMs);
        Samples soonFloor = Samples.of(earlyFloor);
        System.out.printf(Locale.ROOT, "soon after a start, the %d webhooks after %d (the decision path not yet compiled by C2; for"
            + " information): p50 %.1f ms = %.2fx its floor's %.1f ms, p99 %.1f ms = %.2fx its %.1f ms%n", soon.size(), early,
            soon.p50(), soon.p50() / soonFloor.p50(), soonFloor.p50(), soon.p99(), soon.p99() / soonFloor.p99(), soonFloor.p99());
        System.out.printf(Locale.ROOT, "%d webhooks: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n",
            taint.size(), taint.p50(), taint.p90(), taint.p99(), taint.max());
        System.out.printf(Locale.ROOT, "floor, each sample the HTTP hop (a webhook no playbook matches, decoded and answered)"
            + " plus the call the answer waits for, made by a bare client (an update that taints, cordons and writes a"
            + " ledger-sized annotation): p50 %.1f ms, p99 %.1f ms (hop alone p50 %.1f ms, the call alone p50 %.1f ms; a whole"
            + " quarantine's three calls, status update + update + Event, of which the service makes two after answering:"
            + " p50 %.1f ms)%n", bare.p50(), bare.p99(), Samples.of(hop).p50(), Samples.of(calls).p50(),
            Samples.of(quarantines).p50());
        ratios("webhook to taint", taint, bare, 1.5, 2);
      }
    }
  }

  /** Prints a measure's p50 and p99 as ratios of its floor's, sampled in the same run, each against its target. */
  static void ratios(String what, Samples measured, Samples floor, double p50Target, double p99Target) {
    double p50 = measured.p50();
    double p99 = measured.p99();
    double f50 = floor.p50();
    double f99 = floor.p99();
    System.out.printf(Locale.ROOT, "%s p50 is %.2fx its floor; target <= %sx -> %s%n", what, p50 / f50, target(p50Target),
        p50 <= p50Target * f50 ? "MET" : "NOT MET");
    System.out.printf(Locale.ROOT, "%s p99 is %.2fx its floor; target <= %sx -> %s%n", what, p99 / f99, target(p99Target),
        p99 <= p99Target * f99 ? "MET" : "NOT MET");
  }

  private static String target(double x) {
    return x == Math.rint(x) ? Long.toString((long) x) : Double.toString(x);
  }

  /** Polls the node until its ledger says the drain is done; fails with what it saw after 30 s. */
  private static void awaitDrained(KubernetesClient client, String name) {
    awaitStage(client, name, "drained");
  }

  /** Polls the node until its ledger shows an episode in this stage; fails with what it saw after 30 s. */
  static void awaitStage(KubernetesClient client, String name, String stage) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    String seen = "";
    while (System.nanoTime() < deadline) {
      Node node = client.nodes().withName(name).get();
      Map<String, String> annotations = node.getMetadata().getAnnotations();
      seen = annotations == null ? "" : annotations.getOrDefault("gpu-remediator.io/state", "");
      if (seen.contains("\"stage\":\"" + stage + "\"")) {
        return;
      }
      LockSupport.parkNanos(1_000_000);
    }
    throw new IllegalStateException("node " + name + " not " + stage + " within 30 s; its ledger: " + seen);
  }

  /** The three calls of one quarantine, made directly; the node is read first, outside the time (the service reads its cache). */
  static double floorQuarantine(KubernetesClient client, String name) {
    Node node = client.nodes().withName(name).get();
    long t0 = System.nanoTime();
    node.getStatus().getConditions().add(new NodeConditionBuilder().withType("GpuHealthy")
        .withStatus("False").withReason("GpuXid").withMessage("XID 79 on GPU 3").build());
    Node stored = client.nodes().resource(node).updateStatus();
    stored.getSpec().setTaints(List.of(new TaintBuilder().withKey("gpu-remediator.io/unhealthy")
        .withValue("xid-79").withEffect("NoSchedule").build()));
    stored.getSpec().setUnschedulable(true);
    Map<String, String> annotations = new HashMap<>(stored.getMetadata().getAnnotations() == null ? Map.of()
        : stored.getMetadata().getAnnotations());
    annotations.put("gpu-remediator.io/state", "{\"v\":1,\"claims\":{},\"episodes\":{}}");
    stored.getMetadata().setAnnotations(annotations);
    client.nodes().resource(stored).update();
    client.v1().events().inNamespace("default").resource(new EventBuilder()
        .withNewMetadata().withName(name + "." + Long.toHexString(System.nanoTime())).endMetadata()
        .withNewInvolvedObject().withKind("Node").withName(name).endInvolvedObject()
        .withType("Warning").withReason("GpuXidHardwareError").withMessage("floor").build()).create();
    return (System.nanoTime() - t0) / 1e6;
  }

  /** The latency run's recording (the service, the mock API and the client share the JVM). */
  private static Path latencyProfile;
  /** The storm run's recording, the same way. */
  private static Path stormProfile;

  /** Writes a recording's flame graph under bench/results and prints what costs the most. */
  static void profile(Path jfr, Path base, String title) throws IOException {
    if (!Files.exists(jfr)) {
      System.out.println("profile: no recording at " + jfr);
      return;
    }
    FlameGraph.Reading r = FlameGraph.write(jfr, base, title);
    System.out.println("profile (JFR, " + r.samples() + " samples): " + base + ".svg, " + base.getFileName()
        + ".collapsed.txt; hottest frames (self):");
    r.topSelf().forEach(l -> System.out.println("    " + l));
    System.out.println("  the samples by party: " + r.shares());
    System.out.println("  the service's code, total (with what it calls):");
    r.topOurs().forEach(l -> System.out.println("    " + l));
  }

  private static String cpuModel() throws IOException {
    return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
        .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst().orElse("unknown CPU");
  }

  private static void storm(Path playbooks, Path work) throws Exception {
    int warmup = 150;
    int rounds = 50;
    try (MockApiServer api = MockApiServer.fleet();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.client().getConfiguration())
            .withRequestRetryBackoffLimit(0).build()).build()) {
      Path config = work.resolve("storm-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nleader_election: {enabled: false}\n" + LOAD_LIMITS + MockApiServer.SELECTOR);
      try (RemediatorService service = new RemediatorService(ConfigLoader.load(config).config().orElseThrow(), KubeApi.of(client),
          Clock.systemUTC())) {
        int port = awaitReady(service.start());
        int bare = ThroughputServer.bare();
        stormRounds(port, bare, warmup);
        List<List<Double>> measured = stormRounds(port, bare, rounds);
        List<Double> parse = measured.get(0);
        List<Double> alone = measured.get(1);
        List<Double> watched;
        ScheduledExecutorService page = Executors.newSingleThreadScheduledExecutor();
        try {
          // What the status page's script asks every second while it is open.
          page.scheduleAtFixedRate(() -> statusPageRefresh(port), 0, 1, TimeUnit.SECONDS);
          watched = stormRounds(port, bare, rounds).get(1);
        } finally {
          page.shutdownNow();
        }
        // Profiled apart: the recording costs the service and the bare endpoint alike, but not in proportion.
        jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        recording.start();
        stormRounds(port, bare, rounds);
        recording.stop();
        stormProfile = work.resolve("storm.jfr");
        recording.dump(stormProfile);
        recording.close();
        System.out.printf(Locale.ROOT, "%d storms of %d alerts, all refused (breaker_open): p50 %.1f ms, max %.1f ms;"
            + " target < 100 ms -> %s%n", alone.size(), STORM, alone.get(alone.size() / 2), alone.get(alone.size() - 1),
            alone.get(alone.size() - 1) < 100 ? "MET" : "NOT MET");
        double parse50 = parse.get(parse.size() / 2);
        System.out.printf(Locale.ROOT, "the same payload posted to a bare Vert.x endpoint that only parses it, each storm's"
            + " sample right before it: p50 %.1f ms; the storm refused in %.2fx that; target < 2x -> %s%n", parse50,
            alone.get(alone.size() / 2) / parse50, alone.get(alone.size() / 2) < 2 * parse50 ? "MET" : "NOT MET");
        System.out.printf(Locale.ROOT, "the same with the status page open, refreshing every second: p50 %.1f ms, max %.1f ms"
            + " (p50 %.2fx of the storm alone)%n", watched.get(watched.size() / 2), watched.get(watched.size() - 1),
            watched.get(watched.size() / 2) / alone.get(alone.size() / 2));
      }
    }
  }


  /** The same storms posted to the bare parsing endpoint; the sorted times of all but the first 5 rounds. */
  /**
   * {@code rounds} rounds, each a bare parse of a storm's payload and then the storm itself (a new start time: new
   * episodes), the breaker reset after it; the two lists of times in ms, sorted.
   */
  private static List<List<Double>> stormRounds(int port, int barePort, int rounds) throws Exception {
    List<Double> parse = new ArrayList<>();
    List<Double> storm = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      String body = Payloads.xidStorm(STORM, Instant.now().toString());
      parse.add(post(barePort, body, "\"alerts\":" + STORM));
      storm.add(post(port, body, "\"suppressed\":" + STORM));
      HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/breaker/reset"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
          HttpResponse.BodyHandlers.discarding());
    }
    Collections.sort(parse);
    Collections.sort(storm);
    return List.of(parse, storm);
  }

  /** POSTs a webhook body; the time to its answer in ms, which must be a 200 containing {@code expect}. */
  static double post(int port, String body, String expect) throws Exception {
    long t0 = System.nanoTime();
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/alerts"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    double took = (System.nanoTime() - t0) / 1e6;
    if (Resyncs.notReady(r)) {
      Resyncs.waitOut(port, r.body()); // nothing was decided: the same webhook again, timed afresh
      return post(port, body, expect);
    }
    if (r.statusCode() != 200 || !r.body().contains(expect)) {
      throw new IllegalStateException("webhook answered " + r.statusCode() + ", not with " + expect + ": "
          + r.body().substring(0, Math.min(200, r.body().length())));
    }
    return took;
  }

  /** One refresh of the status page: the page and its script, then the four reads its script makes. */
  private static void statusPageRefresh(int port) {
    for (String path : List.of("/", "/status/status.js", "/api/v1/safety", "/api/v1/nodes", "/api/v1/decisions?limit=100",
        "/metrics")) {
      try {
        HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.discarding());
      } catch (Exception e) {
        throw new IllegalStateException("status page refresh: " + path + ": " + e, e);
      }
    }
  }

  static boolean tainted(Node n) {
    return n.getSpec().getTaints() != null
        && n.getSpec().getTaints().stream().anyMatch(t -> t.getKey().equals("gpu-remediator.io/unhealthy"));
  }

  private static void idleRss(Path jar, Path playbooks, Path work) throws Exception {
    try (MockApiServer api = new MockApiServer(50)) {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Path config = work.resolve("rss-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:" + port + "\nauth: {insecure_no_auth: true}\nplaybooks: ["
          + playbooks.toAbsolutePath() + "]\nkubernetes: {kubeconfig: " + api.writeKubeconfig(work.resolve("kubeconfig").toAbsolutePath()) + "}\n");
      String java = ProcessHandle.current().info().command().orElse("java");
      Process service = new ProcessBuilder(java, "-jar", jar.toString(), "serve", "--config", config.toString())
          .redirectOutput(work.resolve("rss.log").toFile()).redirectErrorStream(true).start();
      try {
        awaitReady(port);
        long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long peak = 0;
        long last = 0;
        while (System.nanoTime() < settle) {
          last = rssKiB(service.pid());
          peak = Math.max(peak, last);
          Thread.sleep(500);
        }
        System.out.printf(Locale.ROOT, "ready and idle for 10 s: RSS %d MiB (peak %d MiB while idle); target < 256 MB -> %s%n",
            last / 1024, peak / 1024, last * 1024 < 256_000_000L ? "MET" : "NOT MET");
      } finally {
        stop(service);
      }
    }
  }

  static long rssKiB(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IOException("no VmRSS for " + pid);
  }

  static int awaitReady(int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try {
        if (HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return port;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("service on port " + port + " not ready within 60 s");
  }

  private static String awaitFile(Path file, Process owner) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.exists(file) && !Files.readString(file).isBlank()) {
        return Files.readString(file).strip();
      }
      if (!owner.isAlive()) {
        throw new IllegalStateException("benchmark server exited with " + owner.exitValue());
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("benchmark server did not start within 60 s");
  }

  private static void stop(Process p) throws InterruptedException {
    p.destroy();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
    }
  }
}
