package io.gpuremediator.cli;

import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.backtest.OfflineEngine;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.episode.RemediationEngine;
import io.gpuremediator.episode.WebhookResult;
import io.gpuremediator.http.WebhookDecoder;
import io.gpuremediator.http.WebhookFormatException;
import io.gpuremediator.kube.NodeFiles;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code explain --config FILE --alerts PAYLOAD.json [--nodes NODES.yaml]}: decides one webhook body
 * offline, as a global dry-run, and prints per alert the node, the playbook, each action and the
 * safety verdict. Never contacts Kubernetes. Without {@code --nodes}, every validly named node is
 * assumed to exist and to match {@code node_selector}, and the output says so.
 */
final class ExplainCommand {
  private ExplainCommand() {}

  static int run(List<String> args, PrintStream out, PrintStream err) {
    Flags flags;
    try {
      flags = Flags.parse(args, Set.of("--config", "--alerts", "--nodes"));
      flags.required("--config");
      flags.required("--alerts");
    } catch (IllegalArgumentException e) {
      err.println("remediator explain: " + e.getMessage());
      return 2;
    }
    Optional<ConfigAndPlaybooks> read = ConfigAndPlaybooks.read(Path.of(flags.required("--config")), err);
    if (read.isEmpty()) {
      return 1;
    }
    RemediatorConfig config = read.get().config();
    WebhookMessage message;
    Cluster cluster;
    try {
      message = new WebhookDecoder().decode(Files.readAllBytes(Path.of(flags.required("--alerts"))));
      Optional<String> nodesFile = flags.get("--nodes");
      cluster = nodesFile.isPresent() ? new InMemoryCluster(NodeFiles.read(Path.of(nodesFile.get())))
          : new AssumedNodes(config.nodeSelector());
    } catch (IOException e) {
      err.println("remediator explain: " + e.getMessage());
      return 1;
    } catch (WebhookFormatException e) {
      err.println("remediator explain: " + flags.required("--alerts") + ": " + e.getMessage());
      return 1;
    }
    RemediationEngine engine = OfflineEngine.of(config, read.get().playbooks(), cluster, Clock.systemUTC(),
        !(cluster instanceof AssumedNodes));
    WebhookResult result = engine.handle(message);
    out.println("explain: " + result.decisions().size() + " alert(s); a dry-run: nothing is written to Kubernetes"
        + (cluster instanceof AssumedNodes ? "\nnodes: not checked (no --nodes): every validly named node is assumed to exist"
        + " and match node_selector, and the fleet limits are not evaluated" : ""));
    int i = 0;
    for (Decision d : result.decisions()) {
      print(out, ++i, result.decisions().size(), d);
    }
    return 0;
  }

  private static void print(PrintStream out, int index, int total, Decision d) {
    out.printf("%nalert %d/%d: %s (%s) fingerprint=%s starts_at=%s%n", index, total, d.alertname(), d.status(),
        d.fingerprint(), d.startsAt());
    out.println("  node:     " + (d.node().isEmpty() ? "(none)" : d.node()));
    out.println("  playbook: " + (d.playbook().isEmpty() ? "(none)" : d.playbook()));
    out.println("  decision: " + d.outcome().code() + " (" + d.reason().code() + ")"
        + (d.detail().isEmpty() ? "" : ": " + d.detail()));
    out.println("  safety:   " + d.wouldBeRefused()
        .map(r -> "would be refused: " + r.reason().code() + " (" + r.detail() + ")")
        .orElse(d.outcome() == Outcome.DRY_RUN ? "no limit would refuse it" : "not evaluated"));
    for (ActionRecord a : d.actions()) {
      out.printf("  - %-10s %-10s %s%n", a.type(), a.outcome(), a.change());
    }
  }

  /** Nodes that exist whenever asked for by a valid name, with labels that satisfy the selector. Never written. */
  private static final class AssumedNodes implements Cluster {
    private final Map<String, String> labels = new HashMap<>();

    AssumedNodes(LabelSelector selector) {
      for (LabelSelector.Requirement r : selector.requirements()) {
        if (r.op() == LabelSelector.Op.EQUALS) {
          labels.put(r.key(), r.value());
        } else if (r.op() == LabelSelector.Op.EXISTS) {
          labels.put(r.key(), "true");
        }
      }
    }

    @Override
    public Optional<NodeInfo> node(String name) {
      return Optional.of(NodeInfo.named(name, labels));
    }

    @Override
    public Optional<NodeInfo> freshNode(String name) {
      return node(name);
    }

    @Override
    public Optional<NodeInfo> nodeWithInternalIp(String ip) {
      return Optional.empty();
    }

    @Override
    public List<NodeInfo> nodes() {
      return List.of();
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public long generation() {
      return 0;
    }

    @Override
    public <T> T modifyNode(String name, Function<NodeInfo, Edited<T>> edit) {
      throw new UnsupportedOperationException("explain never writes");
    }

    @Override
    public void recordEvent(NodeEvent event) {
      throw new UnsupportedOperationException("explain never writes");
    }
  }
}
