package io.gpuremediator.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The demo's Prometheus config, made from {@code dcgm/prometheus.yml} as it is: the same jobs, relabel
 * rules, alert relabeling and rule files. Only four things change: the {@code gpu-remediator} job scrapes plain HTTP
 * (the demo's service listens on 127.0.0.1 without TLS), each {@code kubernetes_sd_configs}
 * becomes the static targets Kubernetes discovery would find in the simulated cluster (with the same
 * {@code __meta_kubernetes_*} labels, so the production relabel rules do the work), rule file globs are
 * resolved against the source's directory as Prometheus would, and the intervals are shortened: the global ones to
 * the demo's, and each rule group's own in the same proportion, in copies of the rule files ({@link RuleIntervals}).
 */
public final class ScrapeConfig {
  /** The service's own job: TLS in a cluster, plain HTTP in the demo. */
  private static final String REMEDIATOR_JOB = "gpu-remediator";

  private ScrapeConfig() {}

  /**
   * Renders the config, with the rule files' copies in {@code rules}; fails on any service discovery it cannot stand
   * in for.
   */
  @SuppressWarnings("unchecked")
  public static String render(Path source, List<DiscoveredPod> pods, Duration interval, Path rules) throws IOException {
    Map<String, Object> config = new Yaml().load(Files.readString(source));
    Map<String, Object> global = (Map<String, Object>) config.computeIfAbsent("global", k -> new LinkedHashMap<>());
    // Prometheus evaluates every minute when the config does not say.
    String evaluation = String.valueOf(global.getOrDefault("evaluation_interval", "1m"));
    Duration production = RuleIntervals.duration(evaluation);
    if (production == null) {
      throw new IllegalArgumentException(source + ": an evaluation_interval the demo cannot scale: '" + evaluation + "'");
    }
    global.put("scrape_interval", interval.toSeconds() + "s");
    global.put("evaluation_interval", interval.toSeconds() + "s");
    List<String> ruleFiles = new ArrayList<>();
    List<Object> globs = (List<Object>) config.getOrDefault("rule_files", List.of());
    for (int i = 0; i < globs.size(); i++) {
      Path glob = source.toAbsolutePath().getParent().resolve(globs.get(i).toString()).normalize();
      ruleFiles.add(RuleIntervals.copy(glob, rules.resolve(String.valueOf(i)), production, interval));
    }
    config.put("rule_files", ruleFiles);
    for (Object job : (List<Object>) config.getOrDefault("scrape_configs", List.of())) {
      Map<String, Object> scrape = (Map<String, Object>) job;
      if (REMEDIATOR_JOB.equals(scrape.get("job_name"))) {
        scrape.remove("scheme");
        scrape.remove("tls_config");
      }
      discover(scrape, pods, source);
    }
    Map<String, Object> alerting = (Map<String, Object>) config.getOrDefault("alerting", Map.of());
    for (Object am : (List<Object>) alerting.getOrDefault("alertmanagers", List.of())) {
      discover((Map<String, Object>) am, pods, source);
    }
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return "# Generated for the demo from " + source.getFileName() + "; see io.gpuremediator.pipeline.ScrapeConfig.\n"
        + new Yaml(options).dump(config);
  }

  @SuppressWarnings("unchecked")
  private static void discover(Map<String, Object> section, List<DiscoveredPod> pods, Path source) {
    for (String key : section.keySet()) {
      if (key.endsWith("_sd_configs") && !key.equals("kubernetes_sd_configs")) {
        throw new IllegalArgumentException(source + ": the demo cannot stand in for " + key);
      }
    }
    Object sd = section.remove("kubernetes_sd_configs");
    if (sd == null) {
      return;
    }
    List<Object> targets = new ArrayList<>((List<Object>) section.getOrDefault("static_configs", List.of()));
    for (Object o : (List<Object>) sd) {
      Map<String, Object> k8s = (Map<String, Object>) o;
      if (!"pod".equals(k8s.get("role"))) {
        throw new IllegalArgumentException(source + ": the demo stands in for kubernetes_sd_configs role pod only, not " + k8s.get("role"));
      }
      Map<String, Object> namespaces = (Map<String, Object>) k8s.getOrDefault("namespaces", Map.of());
      List<Object> names = (List<Object>) namespaces.getOrDefault("names", List.of());
      for (DiscoveredPod pod : pods) {
        if (names.isEmpty() || names.contains(pod.namespace())) {
          Map<String, Object> target = new LinkedHashMap<>();
          target.put("targets", List.of(pod.address()));
          target.put("labels", pod.targetLabels());
          targets.add(target);
        }
      }
    }
    section.put("static_configs", targets);
  }
}
