package io.gpuremediator.pipeline;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuremediator.simcluster.SimCluster;
import io.gpuremediator.simcluster.SimNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Starts the whole loop on 127.0.0.1 and stops it: simulator, simulated cluster, remediator,
 * Alertmanager, Prometheus, each waited for until it is ready. Closing stops every process by PID.
 */
public final class Pipeline implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration POLL = Duration.ofMillis(100);
  /**
   * The JVMs of the loop share 2 cores with Prometheus, Alertmanager and whatever else the machine runs:
   * the serial collector and the client compiler alone keep their background threads (GC workers, C2)
   * from taking a core the loop needs. Their work here is small; they never need the server compiler.
   */
  private static final List<String> SMALL_JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private final Layout layout;
  private final Options options;
  private final PipelineEvents events;
  private final Processes processes;
  private final Http http = new Http();
  private final List<Integer> ports = new ArrayList<>();
  private Simulator simulator;
  private List<SimNode> nodes;
  private KubernetesClient kube;
  private WebhookTee tee;
  private NotifyReceiver notify;
  private String token;
  private String operatorToken;
  private int remediatorPort;
  private int alertmanagerPort;
  private int prometheusPort;

  private Pipeline(Layout layout, Options options, PipelineEvents events) {
    this.layout = layout;
    this.options = options;
    this.events = events;
    this.processes = new Processes(layout.work().resolve("pids"), layout.root());
  }

  /** Starts everything; on any failure, stops what was started and throws. */
  public static Pipeline start(Layout layout, Options options, PipelineEvents events) throws Exception {
    layout.requireBuilt();
    Files.createDirectories(layout.work());
    Processes.reapStale(layout.work().resolve("pids"), layout.work());
    Pipeline p = new Pipeline(layout, options, events);
    try {
      p.startAll();
      return p;
    } catch (Exception | Error e) {
      p.close();
      throw e;
    }
  }

  private void startAll() throws Exception {
    Path run = layout.run();
    Dirs.deleteRecursively(run);
    Files.createDirectories(run);
    token = HexFormat.of().formatHex(new SecureRandom().generateSeed(24));
    Path tokenFile = run.resolve("token");
    Files.writeString(tokenFile, token);
    Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
    // The operator's token is another (the service refuses one token for two roles); the story reads with it.
    operatorToken = HexFormat.of().formatHex(new SecureRandom().generateSeed(24));
    Files.writeString(run.resolve("operator-token"), operatorToken);
    Files.setPosixFilePermissions(run.resolve("operator-token"), PosixFilePermissions.fromString("rw-------"));
    Files.writeString(run.resolve("ledger-key"), HexFormat.of().formatHex(new SecureRandom().generateSeed(32)));
    Files.setPosixFilePermissions(run.resolve("ledger-key"), PosixFilePermissions.fromString("rw-------"));

    int simulatorPort = startWithPortFile("dcgm-simulator", java("-Xmx256m",
        "-jar", layout.simulatorJar().toString(), "--csv", layout.countersCsv().toString(),
        "--gpu-nodes", Integer.toString(options.gpuNodes()), "--trn-nodes", Integer.toString(options.trnNodes()),
        "--listen", "127.0.0.1:0", "--port-file", run.resolve("simulator.port").toString(), "--no-node-label"),
        run.resolve("simulator.port"));
    simulator = new Simulator(http, simulatorPort);
    nodes = SimNode.listFrom(http.get(simulator.nodesUrl(), null));

    Path kubeconfig = run.resolve("kubeconfig");
    startWithPortFile("sim-cluster", java("-Xmx384m",
        "-cp", layout.demoJar().toString(), "io.gpuremediator.simcluster.Main", "--nodes-from", simulator.nodesUrl(),
        "--listen", "127.0.0.1:0", "--port-file", run.resolve("cluster.port").toString(), "--kubeconfig", kubeconfig.toString(),
        "--node-tools", layout.nodeTools().toString(), "--recorded", layout.recorded().toString(),
        "--kubelet-dir", run.resolve("kubelet").toString()),
        run.resolve("cluster.port"));
    kube = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();

    remediatorPort = Ports.free();
    alertmanagerPort = Ports.free(); // the remediator holds its silences there
    notify = new NotifyReceiver(events);
    Path notifyUrl = run.resolve("gpu-oncall-url");
    Files.writeString(notifyUrl, notify.url());
    Path serviceConfig = run.resolve("remediator.yaml");
    Files.writeString(serviceConfig, serviceConfig(tokenFile, kubeconfig, notifyUrl));
    startUntilReady("remediator", java("-Xmx256m", "-jar", layout.remediatorJar().toString(), "serve", "--config",
        serviceConfig.toString()), remediatorPort, "/readyz");
    String webhook = remediatorUrl() + "/api/v1/alerts";
    if (options.verbose()) {
      tee = new WebhookTee(http, webhook, events);
      webhook = "http://127.0.0.1:" + tee.port() + "/api/v1/alerts";
    }

    Path amConfig = run.resolve("alertmanager.yml");
    Files.writeString(amConfig, RouteConfig.render(layout.alertmanagerConfig(), webhook, tokenFile, options.groupWait(),
        options.groupInterval()));
    startUntilReady("alertmanager", List.of(binary("prometheus-alertmanager", "alertmanager"), "--config.file=" + amConfig,
        "--storage.path=" + run.resolve("alertmanager"), "--web.listen-address=127.0.0.1:" + alertmanagerPort,
        "--cluster.listen-address="), alertmanagerPort, "/-/ready");

    prometheusPort = Ports.free();
    Path promConfig = run.resolve("prometheus.yml");
    Files.writeString(promConfig, ScrapeConfig.render(layout.scrapeConfig(),
        DiscoveredPod.of(nodes, simulatorPort, alertmanagerPort), options.interval(), run.resolve("rules")));
    startUntilReady("prometheus", List.of(binary("prometheus"), "--config.file=" + promConfig,
        "--storage.tsdb.path=" + run.resolve("prometheus"), "--web.listen-address=127.0.0.1:" + prometheusPort),
        prometheusPort, "/-/ready");
  }

  private String serviceConfig(Path tokenFile, Path kubeconfig, Path notifyUrl) throws IOException {
    return String.join("\n",
        "# Generated for the demo: the playbooks and the replacement and pre-flight settings of deploy/karpenter, a spare",
        "# pool of the nodes labelled pool=llm-finetune (none is, until the story labels two), a sweep of those labelled",
        "# sweep=weekly (none is, until the story labels one),",
        "# every other key at its default.",
        "listen: 127.0.0.1:" + remediatorPort,
        "auth: {webhook_token_file: " + tokenFile + ", operator_token_file: " + tokenFile.resolveSibling("operator-token")
            + ", ledger_key_file: " + tokenFile.resolveSibling("ledger-key") + "}",
        "playbooks: [" + layout.karpenterPlaybooks().stream().map(Path::toString).collect(Collectors.joining(", ")) + "]",
        "dry_run: false",
        "kubernetes: {kubeconfig: " + kubeconfig + "}",
        "leader_election: {enabled: true, namespace: gpu-remediator, lease: gpu-remediator}",
        "loop: {interval: 1s, retry_delay: 2s}",
        "alertmanager: {url: \"http://127.0.0.1:" + alertmanagerPort + "\"}",
        "notify: {receivers: [{name: gpu-oncall, type: slack, url_file: " + notifyUrl + "}]}",
        "cloud: {karpenter: {}, cluster_api: {}}",
        "evidence: {store: {pvc: " + SimCluster.EVIDENCE_CLAIM + "}}",
        "preflight:",
        "  taint: gpu-remediator.io/preflight",
        "  diagnose: {image: nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04, command: [dcgmi, diag, -r, \"2\", -j],"
            + " timeout: 30m}",
        "  max_concurrent: 2",
        "  on_fail: gpu-needs-human",
        "spares: {select: \"pool=llm-finetune\", count: 1}",
        "sweeps: [{name: idle-diag, every: 7d, playbook: gpu-sweep, select: \"sweep=weekly\"}]",
        options.safetyYaml() == null ? "" : "safety: " + options.safetyYaml(), "");
  }

  private int startWithPortFile(String name, List<String> command, Path portFile) throws Exception {
    long t0 = System.nanoTime();
    Processes.Started s = processes.start(name, command, layout.run().resolve(name + ".log"));
    String port = Poll.until(name + " writes " + portFile.getFileName(), READY_TIMEOUT, POLL,
        () -> alive(s) && Files.exists(portFile)
            ? Optional.of(Files.readString(portFile).trim()).filter(p -> p.matches("\\d{1,5}")) : Optional.empty());
    events.started(name, s.pid(), "127.0.0.1:" + port, Duration.ofNanos(System.nanoTime() - t0));
    ports.add(Integer.parseInt(port));
    return Integer.parseInt(port);
  }

  private void startUntilReady(String name, List<String> command, int port, String readyPath) throws Exception {
    long t0 = System.nanoTime();
    Processes.Started s = processes.start(name, command, layout.run().resolve(name + ".log"));
    ports.add(port);
    String url = "http://127.0.0.1:" + port + readyPath;
    Poll.until(name + " answers 200 on " + readyPath, READY_TIMEOUT, POLL,
        () -> alive(s) && http.status(url) == 200 ? Optional.of(true) : Optional.empty());
    events.started(name, s.pid(), "127.0.0.1:" + port, Duration.ofNanos(System.nanoTime() - t0));
  }

  /** Throws, with the end of its log, when a process died while being waited for. */
  private static boolean alive(Processes.Started s) throws IOException {
    if (!s.process().isAlive()) {
      List<String> log = Files.readAllLines(s.log());
      throw new IllegalStateException(s.name() + " exited with " + s.process().exitValue() + "; the end of " + s.log() + ":\n  "
          + String.join("\n  ", log.subList(Math.max(0, log.size() - 15), log.size())));
    }
    return true;
  }

  /** A command line for this JVM's java with {@link #SMALL_JVM} and {@code args}. */
  private static List<String> java(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(SMALL_JVM);
    command.addAll(List.of(args));
    return command;
  }

  /** The first of {@code names} on the PATH (Debian names Alertmanager's binary prometheus-alertmanager). */
  private static String binary(String... names) {
    for (String name : names) {
      for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
        if (Files.isExecutable(Path.of(dir, name))) {
          return Path.of(dir, name).toString();
        }
      }
    }
    throw new IllegalStateException(names[0] + " is not installed (run `make demo`, which installs it)");
  }

  /** Where the simulated cluster's evidence claim keeps its files (the volume behind {@link SimCluster#EVIDENCE_CLAIM}). */
  public Path evidenceClaim() {
    return layout.run().resolve("kubelet/claims").resolve(SimCluster.EVIDENCE_CLAIM);
  }

  public Simulator simulator() {
    return simulator;
  }

  public List<SimNode> nodes() {
    return nodes;
  }

  public KubernetesClient kube() {
    return kube;
  }

  public Http http() {
    return http;
  }

  /** The operator's token, which reads the service's API (the webhook's posts alerts only). */
  public String operatorToken() {
    return operatorToken;
  }

  public String remediatorUrl() {
    return "http://127.0.0.1:" + remediatorPort;
  }

  public String alertmanagerUrl() {
    return "http://127.0.0.1:" + alertmanagerPort;
  }

  /** The messages the demo's gpu-oncall receiver got, oldest first. */
  public List<String> notifications() {
    return notify == null ? List.of() : notify.received();
  }

  public String prometheusUrl() {
    return "http://127.0.0.1:" + prometheusPort;
  }

  /** The processes started, for the report of what was stopped. */
  public List<Processes.Started> processes() {
    return processes.started();
  }

  /** The ports the processes listened on that still accept connections (after {@link #close()}: none). */
  public List<Integer> stillListening() {
    return ports.stream().filter(Ports::listening).toList();
  }

  @Override
  public void close() {
    if (kube != null) {
      kube.close();
    }
    if (tee != null) {
      tee.close();
    }
    processes.close();
    if (notify != null) {
      notify.close();
    }
  }
}
