package io.gpuremediator.cli;

import io.gpuremediator.backtest.AlertHistory;
import io.gpuremediator.backtest.Backtest;
import io.gpuremediator.backtest.BacktestReport;
import io.gpuremediator.backtest.Replay;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.kube.Fabric8Cluster;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.kube.NodeFiles;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader.Parsed;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code backtest --config FILE --prometheus URL [--since 7d] [--nodes NODES.yaml]}: replays the remediation alerts
 * Prometheus recorded ({@code ALERTS}) through the decision path in dry-run and prints, per day, what would have been
 * done and refused. The nodes are the cluster's as they are now (one list through the config's Kubernetes access, never
 * a write), or those of {@code --nodes}. Exit 0; 1 when the config, the playbooks, the nodes or Prometheus cannot be read.
 */
final class BacktestCommand {
  /** Prometheus' evaluation of the rules is every 30 s or more; a minute's step sees every stretch of firing. */
  static final Duration STEP = Duration.ofMinutes(1);
  private static final Duration NODES_DEADLINE = Duration.ofSeconds(60);

  private BacktestCommand() {}

  static int run(List<String> args, PrintStream out, PrintStream err, Clock clock) {
    Flags flags;
    Duration since;
    URI prometheus;
    try {
      flags = Flags.parse(args, Set.of("--config", "--prometheus", "--since", "--nodes"));
      flags.required("--config");
      prometheus = URI.create(flags.required("--prometheus"));
      Parsed<Duration> parsed = Durations.parse(flags.get("--since").orElse("7d"));
      if (parsed.value() == null) {
        throw new IllegalArgumentException("--since: " + parsed.error());
      }
      since = parsed.value();
      if (!"http".equals(prometheus.getScheme()) && !"https".equals(prometheus.getScheme())) {
        throw new IllegalArgumentException("--prometheus must be an http or https URL, not " + prometheus);
      }
    } catch (IllegalArgumentException e) {
      err.println("remediator backtest: " + e.getMessage());
      return 2;
    }
    Optional<ConfigAndPlaybooks> read = ConfigAndPlaybooks.read(Path.of(flags.required("--config")), err);
    if (read.isEmpty()) {
      return 1;
    }
    RemediatorConfig config = read.get().config();
    PlaybookSet playbooks = read.get().playbooks();
    List<NodeInfo> nodes;
    try {
      nodes = flags.get("--nodes").isPresent() ? NodeFiles.read(Path.of(flags.get("--nodes").get())) : clusterNodes(config);
    } catch (IOException | RuntimeException e) {
      err.println("remediator backtest: cannot read the nodes: " + e.getMessage());
      return 1;
    }
    Instant end = Instant.ofEpochSecond(clock.instant().getEpochSecond() / STEP.toSeconds() * STEP.toSeconds());
    Instant from = end.minus(since);
    List<AlertHistory.Series> history;
    try {
      history = new AlertHistory(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build(), prometheus)
          .read(from, end, STEP);
    } catch (AlertHistory.PrometheusException e) {
      err.println("remediator backtest: " + e.getMessage());
      return 1;
    }
    List<Replay.Webhook> webhooks = Replay.of(history, STEP, end);
    List<Decision> decisions = Backtest.run(config, playbooks, nodes, webhooks);
    long selected = nodes.stream().filter(n -> config.nodeSelector().matches(n.labels())).count();
    out.printf("backtest: ALERTS{remediate=\"true\"} of %s from %s to %s (step %s): %d alert series, %d webhooks replayed"
        + " in dry-run against %d nodes (%d selected)%s; nothing was written%n", prometheus, from, end,
        Durations.format(STEP), history.size(), webhooks.size(), nodes.size(), selected,
        flags.get("--nodes").map(f -> " from " + f).orElse(" as the cluster has them now"));
    BacktestReport report = BacktestReport.of(decisions);
    report.print(out, LocalDate.ofInstant(from, ZoneOffset.UTC), LocalDate.ofInstant(end, ZoneOffset.UTC));
    if (report.anyStorm() && config.safety().limits().autoResetAfter().isEmpty()) {
      out.println("note: safety.breaker sets no auto_reset_after, so once open the breaker stays open for the rest of the"
          + " replay, as it would until a human reset it");
    }
    return 0;
  }

  /** The cluster's nodes now: one list and watch through the config's Kubernetes access, closed once synced. */
  private static List<NodeInfo> clusterNodes(RemediatorConfig config) throws IOException {
    try (KubeApi kube = KubeApi.connect(config.kubernetes().kubeconfig(), config.kubernetes().qps(),
        config.kubernetes().burst(), config.kubernetes().writesInFlight())) {
      Fabric8Cluster cluster = kube.readOnlyCluster("backtest", config.nodeSelector());
      cluster.start();
      try {
        long deadline = System.nanoTime() + NODES_DEADLINE.toNanos();
        while (!cluster.isReady()) {
          if (System.nanoTime() > deadline) {
            throw new IOException("the node list did not sync within " + Durations.format(NODES_DEADLINE) + " ("
                + cluster.nodes().size() + " nodes cached by then)");
          }
          LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
        return cluster.nodes();
      } finally {
        cluster.close();
      }
    }
  }
}
