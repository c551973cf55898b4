package io.gpuremediator.config;

import io.gpuremediator.action.PreflightSettings;
import io.gpuremediator.config.RemediatorConfig.Auth;
import io.gpuremediator.config.RemediatorConfig.LeaderElection;
import io.gpuremediator.config.RemediatorConfig.Limits;
import io.gpuremediator.config.RemediatorConfig.Safety;
import io.gpuremediator.config.RemediatorConfig.Tls;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.SparePolicy;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.safety.DomainBudget;
import io.gpuremediator.safety.SafetyLimits;
import io.gpuremediator.state.LedgerLimits;
import io.gpuremediator.sweep.SweepPolicy;
import io.gpuremediator.value.CountOrPercent;
import io.gpuremediator.value.Durations;
import io.gpuremediator.value.Rate;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import io.gpuremediator.yaml.YamlFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.SequenceNode;

/** Decodes {@code remediator.yaml}. Stateless. */
public final class ConfigLoader {
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  /** A namespace's name: a DNS label. */
  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern LISTEN = Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[0-9.]+|[a-zA-Z0-9.-]+):(\\d{1,5})");

  private ConfigLoader() {}

  /** The decoded config, or every problem found. */
  public record Result(Optional<RemediatorConfig> config, List<String> errors) {}

  /** Loads and decodes a config file. */
  public static Result load(Path file) {
    Problems problems = new Problems(file.toString());
    Path base = file.toAbsolutePath().getParent();
    Optional<RemediatorConfig> config = YamlFile.read(file, problems)
        .flatMap(root -> MapReader.of(root, "config", problems))
        .flatMap(m -> decode(m, base, problems));
    return new Result(problems.isEmpty() ? config : Optional.empty(), problems.messages());
  }

  private static Optional<RemediatorConfig> decode(MapReader m, Path base, Problems problems) {
    Optional<RemediatorConfig.Listen> listen = listen(m, "listen", m.string("listen").orElse("0.0.0.0:8080"), problems);
    Optional<RemediatorConfig.Listen> statusListen = m.string("status_listen")
        .flatMap(s -> listen(m, "status_listen", s, problems));
    Auth auth = AuthConfig.decode(m, base, problems);
    Optional<Tls> tls = m.map("tls", "tls").flatMap(t -> {
      Optional<String> cert = t.requiredString("cert_file");
      Optional<String> key = t.requiredString("key_file");
      t.finish();
      return cert.isPresent() && key.isPresent()
          ? Optional.of(new Tls(base.resolve(cert.get()), base.resolve(key.get()))) : Optional.empty();
    });
    long maxBody = m.count("max_body_bytes").orElse(4L * 1024 * 1024);
    if (maxBody < 1024 || maxBody > 64L * 1024 * 1024) {
      problems.add(m.at("max_body_bytes"), "\"max_body_bytes\" must be between 1024 and 67108864");
    }
    List<Path> playbooks = new ArrayList<>();
    m.list("playbooks").ifPresentOrElse(
        items -> items.forEach(n -> m.scalar(n, "playbooks").ifPresent(p -> playbooks.add(base.resolve(p)))),
        () -> playbooks.add(Path.of("/etc/remediator/playbooks")));
    boolean dryRun = m.bool("dry_run").orElse(false);
    RemediatorConfig.Kubernetes kubernetes = KubernetesConfig.decode(m, base, problems);
    LabelSelector selector = nodeSelector(m, problems);
    List<String> nodeFrom = nodeFrom(m, problems);
    Safety safety = safety(m, problems);
    LeaderElection leader = LeaderElectionConfig.decode(m, problems);
    Limits limits = limits(m, problems);
    RemediatorConfig.Loop loop = loop(m, problems);
    Optional<RemediatorConfig.Alertmanager> alertmanager = OutboundConfig.alertmanager(m, base, problems);
    List<RemediatorConfig.Receiver> receivers = OutboundConfig.receivers(m, base, problems);
    OutboundConfig.Cloud cloud = OutboundConfig.cloud(m, base, problems);
    Optional<PreflightSettings> preflight = PreflightConfig.decode(m, problems);
    var accept = AcceptAlerts.decode(m, problems);
    List<DeferRule> deferTo = DeferToDecoder.deferTo(m, problems);
    Optional<SparePolicy> spares = SparesDecoder.spares(m, problems);
    List<SweepPolicy> sweeps = SweepsDecoder.sweeps(m, problems);
    DraScope dra = dra(m, problems);
    LedgerLimits ledger = ledger(m, problems);
    List<String> allowedHosts = HttpConfig.allowedHosts(m, problems);
    Optional<EvidenceStore> evidence = m.map("evidence", "evidence").flatMap(e -> {
      Optional<Optional<EvidenceStore>> store = EvidenceStore.decode(e, "evidence");
      e.finish();
      return store.flatMap(s -> s);
    });
    LogFormat logFormat = logFormat(m, problems);
    m.finish();
    if (!problems.isEmpty()) {
      return Optional.empty();
    }
    if (statusListen.isPresent() && statusListen.equals(listen) && listen.get().port() != 0) {
      problems.add(m.at("status_listen"), "\"status_listen\" must differ from \"listen\"");
      return Optional.empty();
    }
    return Optional.of(new RemediatorConfig(listen.get().host(), listen.get().port(), auth, tls, maxBody, playbooks, dryRun,
        kubernetes, selector, nodeFrom, safety, leader, limits, loop, statusListen, alertmanager, receivers, cloud.aws(),
        cloud.redfish(), cloud.replaceProviders(), preflight, accept, logFormat, deferTo, dra, evidence, ledger,
        allowedHosts, spares, sweeps));
  }

  private static LogFormat logFormat(MapReader m, Problems problems) {
    return m.string("log_format").map(f -> LogFormat.parse(f).orElseGet(() -> {
      problems.add(m.at("log_format"), "\"log_format\" must be text or json, not \"" + f + "\"");
      return LogFormat.TEXT;
    })).orElse(LogFormat.TEXT);
  }

  /** {@code ledger}: what a node's ledger (an annotation; 256 KiB of them in all) may hold. */
  private static LedgerLimits ledger(MapReader m, Problems problems) {
    return m.map("ledger", "ledger").map(l -> {
      long bytes = l.count("max_bytes").orElse((long) LedgerLimits.DEFAULT.maxBytes());
      long episodes = l.count("max_episodes_per_node").orElse((long) LedgerLimits.DEFAULT.maxEpisodesPerNode());
      l.finish();
      if (bytes < 4096 || bytes > 192 * 1024) {
        problems.add(l.at("max_bytes"), "\"max_bytes\" in ledger must be from 4096 to 196608 bytes (the Node's annotations"
            + " take 262144 in all, the kubelet's and others' among them), not " + bytes);
      }
      if (episodes < 1 || episodes > 256) {
        problems.add(l.at("max_episodes_per_node"), "\"max_episodes_per_node\" in ledger must be from 1 to 256, not "
            + episodes);
      }
      return new LedgerLimits((int) Math.min(bytes, Integer.MAX_VALUE), (int) Math.min(episodes, 256));
    }).orElse(LedgerLimits.DEFAULT);
  }

  /** {@code node_selector}: one label selector, or a list of them of which any may match; absent, the GPU labels of every install. */
  private static LabelSelector nodeSelector(MapReader m, Problems problems) {
    if (!(m.has("node_selector") && m.at("node_selector") instanceof SequenceNode)) {
      return m.parsed("node_selector", LabelSelector::parse).orElseGet(LabelSelector::gpuNodes);
    }
    List<LabelSelector> anyOf = new ArrayList<>();
    for (Node n : m.list("node_selector").orElse(List.of())) {
      m.scalar(n, "node_selector").ifPresent(text -> {
        MapReader.Parsed<LabelSelector> one = LabelSelector.parse(text);
        if (one.error() != null) {
          problems.add(n, "\"node_selector\" entry: " + one.error());
        } else {
          anyOf.add(one.value());
        }
      });
    }
    if (anyOf.isEmpty()) {
      problems.add(m.node(), "\"node_selector\" must name at least one selector (a node matching any of them is selected)");
      return LabelSelector.gpuNodes();
    }
    return LabelSelector.anyOf(anyOf);
  }

  private static Optional<RemediatorConfig.Listen> listen(MapReader m, String key, String value, Problems problems) {
    Matcher lm = LISTEN.matcher(value);
    if (!lm.matches() || Integer.parseInt(lm.group(2)) > 65535) {
      problems.add(m.at(key), "\"" + key + "\" must be HOST:PORT, not \"" + value + "\"");
      return Optional.empty();
    }
    return Optional.of(new RemediatorConfig.Listen(lm.group(1).replaceAll("[\\[\\]]", ""), Integer.parseInt(lm.group(2))));
  }

  private static List<String> nodeFrom(MapReader m, Problems problems) {
    List<String> chain = new ArrayList<>();
    m.list("node_from").ifPresentOrElse(items -> {
      for (Node n : items) {
        m.scalar(n, "node_from").ifPresent(label -> {
          if (LABEL_NAME.matcher(label).matches()) {
            chain.add(label);
          } else {
            problems.add(n, "\"node_from\" entry \"" + label + "\" is not a label name");
          }
        });
      }
      if (items.isEmpty()) {
        problems.add(m.at("node_from"), "\"node_from\" must name at least one label");
      }
    }, () -> chain.addAll(List.of("node", "Hostname", "hostname", "instance")));
    return chain;
  }

  private static Safety safety(MapReader m, Problems problems) {
    SafetyLimits d = SafetyLimits.DEFAULTS;
    Optional<MapReader> s = m.map("safety", "safety");
    CountOrPercent maxUnavailable = s.flatMap(r -> r.parsed("max_unavailable", CountOrPercent::parse)).orElse(d.maxUnavailable());
    Rate rate = s.flatMap(r -> r.parsed("rate_limit", Rate::parse)).orElse(d.rate());
    Optional<MapReader> breaker = s.flatMap(r -> r.map("breaker", "breaker"));
    int breakerNodes = breaker.flatMap(b -> b.count("nodes")).map(Long::intValue).orElse(d.breakerNodes());
    Duration breakerWindow = breaker.flatMap(b -> b.parsed("window", Durations::parse)).orElse(d.breakerWindow());
    Optional<Duration> autoReset = breaker.flatMap(b -> b.parsed("auto_reset_after", Durations::parse));
    breaker.ifPresent(MapReader::finish);
    Duration cooldown = s.flatMap(r -> r.parsed("cooldown", Durations::parse)).orElse(d.cooldown());
    CountOrPercent maxDraining = s.flatMap(r -> r.parsed("max_draining", CountOrPercent::parse))
        .orElse(Safety.DEFAULT_MAX_DRAINING);
    Rate replaceRate = s.flatMap(r -> r.parsed("replace_rate_limit", Rate::parse)).orElse(d.replaceRate());
    List<DomainBudget> domains = s.map(r -> DomainsDecoder.domains(r, problems)).orElse(List.of());
    List<String> page = new ArrayList<>();
    s.flatMap(r -> r.list("page").map(items -> {
      items.forEach(n -> r.scalar(n, "page").ifPresent(page::add));
      return items;
    }));
    CountOrPercent maxUnavailableGpus = s.flatMap(r -> r.parsed("max_unavailable_gpus", t -> CountOrPercent.parse(t).error()
        == null ? CountOrPercent.parse(t) : MapReader.Parsed.error("\"" + t + "\" is not a GPU count or a percentage from 0%"
        + " to 100%"))).orElse(d.maxUnavailableGpus());
    int maxFencedPerNode = s.flatMap(r -> r.count("max_fenced_per_node")).map(Long::intValue).orElse(d.maxFencedPerNode());
    s.ifPresent(MapReader::finish);
    return new Safety(new SafetyLimits(maxUnavailable, rate, breakerNodes, breakerWindow, autoReset, cooldown, replaceRate,
        domains, maxUnavailableGpus, maxFencedPerNode), maxDraining, page);
  }

  /**
   * {@code dra}: {@code driver}, the DRA driver whose ResourceSlices publish the GPUs a {@code fence_gpu} fences; and
   * {@code keep_namespaces}, the namespaces whose DaemonSet pods a fence never evicts (the GPU Operator's exporter holds
   * every GPU of its node).
   */
  private static DraScope dra(MapReader m, Problems problems) {
    return m.map("dra", "dra").map(d -> {
      String driver = d.string("driver").orElse(DraScope.NVIDIA_DRIVER);
      if (FieldRule.DNS_SUBDOMAIN.check(driver).isPresent()) {
        problems.add(d.at("driver"), "\"driver\" in dra must be a DRA driver's name (a DNS subdomain), not \"" + driver
            + "\"");
      }
      Set<String> keep = new LinkedHashSet<>();
      d.list("keep_namespaces").ifPresentOrElse(items -> {
        for (Node n : items) {
          d.scalar(n, "keep_namespaces").ifPresent(ns -> {
            if (NAMESPACE.matcher(ns).matches()) {
              keep.add(ns);
            } else {
              problems.add(n, "\"keep_namespaces\" entry \"" + ns + "\" in dra is not a namespace name (a DNS label)");
            }
          });
        }
      }, () -> keep.addAll(DraScope.DEFAULT_KEEP_NAMESPACES));
      d.finish();
      return new DraScope(driver, keep);
    }).orElse(DraScope.DEFAULT);
  }

  private static RemediatorConfig.Loop loop(MapReader m, Problems problems) {
    return m.map("loop", "loop").map(l -> {
      RemediatorConfig.Loop d = RemediatorConfig.Loop.DEFAULTS;
      Duration interval = l.parsed("interval", Durations::parse).orElse(d.interval());
      if (interval.compareTo(Duration.ofMillis(100)) < 0 || interval.compareTo(Duration.ofMinutes(10)) > 0) {
        problems.add(l.at("interval"), "\"interval\" in loop must be between 100ms and 10m");
      }
      Duration retry = l.parsed("retry_delay", Durations::parse).orElse(d.retryDelay());
      if (retry.compareTo(Duration.ofMillis(100)) < 0 || retry.compareTo(Duration.ofMinutes(10)) > 0) {
        problems.add(l.at("retry_delay"), "\"retry_delay\" in loop must be between 100ms and 10m");
      }
      l.finish();
      return new RemediatorConfig.Loop(interval, retry);
    }).orElse(RemediatorConfig.Loop.DEFAULTS);
  }

  private static Limits limits(MapReader m, Problems problems) {
    return m.map("limits", "limits").map(l -> {
      Limits d = Limits.DEFAULTS;
      long connections = l.count("max_connections").orElse((long) d.maxConnections());
      if (connections < 16 || connections > 1_000_000) {
        problems.add(l.at("max_connections"), "\"max_connections\" in limits must be between 16 and 1000000");
      }
      Duration idle = l.parsed("idle_timeout", Durations::parse).orElse(d.idleTimeout());
      if (idle.compareTo(Duration.ofSeconds(1)) < 0 || idle.compareTo(Duration.ofHours(1)) > 0) {
        problems.add(l.at("idle_timeout"), "\"idle_timeout\" in limits must be between 1s and 1h");
      }
      Rate clientRate = l.parsed("client_rate", Rate::parse).orElse(d.clientRate());
      if (clientRate.count() < 1) {
        problems.add(l.at("client_rate"), "\"client_rate\" in limits must allow at least 1 request");
      }
      long queue = l.count("webhook_queue").orElse((long) d.webhookQueue());
      if (queue < 2 || queue > 1024) {
        problems.add(l.at("webhook_queue"), "\"webhook_queue\" in limits must be between 2 and 1024");
      }
      Duration body = l.parsed("body_timeout", Durations::parse).orElse(d.bodyTimeout());
      if (body.compareTo(Duration.ofSeconds(1)) < 0 || body.compareTo(Duration.ofMinutes(10)) > 0) {
        problems.add(l.at("body_timeout"), "\"body_timeout\" in limits must be between 1s and 10m");
      }
      l.finish();
      return new Limits((int) Math.min(connections, Integer.MAX_VALUE), idle, clientRate, (int) Math.min(queue, Integer.MAX_VALUE),
          body);
    }).orElse(Limits.DEFAULTS);
  }
}
