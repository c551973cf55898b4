package io.gpuremediator.signals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * A Prometheus config split by node across {@code count} servers, as dcgm/README.md's "Sharded Prometheus" tells an
 * operator to do it: a job whose targets are per node (every exporter a DaemonSet runs) keeps the targets whose
 * {@code node} hashes to the shard; kube-state-metrics, one target for every node, keeps the series whose
 * {@code node} hashes to it; the remediator's own job and its rules (about the service, not a node) belong to shard 0.
 * Any other job fails: sharding it would need a decision of its own.
 */
final class Shards {
  private static final Set<String> SERIES_PER_NODE = Set.of("kube-state-metrics");
  private static final Set<String> FIRST_SHARD_ONLY = Set.of("gpu-remediator");
  private static final String SERVICE_RULES = "remediator.rules.yml";

  private Shards() {}

  /** Shard {@code shard} of {@code count} of the config {@code yaml} (one without alerting: nothing is sent). */
  @SuppressWarnings("unchecked")
  static String of(String yaml, int shard, int count) throws IOException {
    Map<String, Object> config = new Yaml().load(yaml);
    config.remove("alerting");
    List<String> rules = new ArrayList<>();
    for (Object glob : (List<Object>) config.getOrDefault("rule_files", List.of())) {
      Path pattern = Path.of(glob.toString());
      try (var files = Files.newDirectoryStream(pattern.getParent(), pattern.getFileName().toString())) {
        for (Path f : files) {
          if (shard == 0 || !f.getFileName().toString().equals(SERVICE_RULES)) {
            rules.add(f.toString());
          }
        }
      }
    }
    config.put("rule_files", rules);
    List<Object> jobs = new ArrayList<>();
    for (Object o : (List<Object>) config.getOrDefault("scrape_configs", List.of())) {
      Map<String, Object> job = (Map<String, Object>) o;
      String name = (String) job.get("job_name");
      List<Object> relabel = (List<Object>) job.computeIfAbsent("relabel_configs", k -> new ArrayList<>());
      boolean nodePerTarget = relabel.stream().anyMatch(r -> "node".equals(((Map<String, Object>) r).get("target_label")));
      if (nodePerTarget) {
        relabel.addAll(keepOwn(shard, count));
      } else if (SERIES_PER_NODE.contains(name)) {
        ((List<Object>) job.computeIfAbsent("metric_relabel_configs", k -> new ArrayList<>())).addAll(keepOwn(shard, count));
      } else if (FIRST_SHARD_ONLY.contains(name)) {
        if (shard != 0) {
          continue;
        }
      } else {
        throw new IllegalArgumentException("job " + name + " is neither per node nor known to the sharding");
      }
      jobs.add(job);
    }
    config.put("scrape_configs", jobs);
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return new Yaml(options).dump(config);
  }

  private static List<Object> keepOwn(int shard, int count) {
    return List.of(
        Map.of("source_labels", List.of("node"), "modulus", count, "target_label", "__tmp_shard", "action", "hashmod"),
        Map.of("source_labels", List.of("__tmp_shard"), "regex", Integer.toString(shard), "action", "keep"));
  }

  /** The shard of {@code count} Prometheus's {@code hashmod} puts {@code node} in (the MD5's low 64 bits, modulo). */
  static int owner(String node, int count) {
    try {
      byte[] md5 = MessageDigest.getInstance("MD5").digest(node.getBytes(StandardCharsets.UTF_8));
      long low = 0;
      for (int i = 8; i < 16; i++) {
        low = low << 8 | (md5[i] & 0xff);
      }
      return (int) Long.remainderUnsigned(low, count);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Label sets in a stable order (by their text), for sets of alerts. */
  static int compare(Map<String, String> a, Map<String, String> b) {
    return new TreeMap<>(a).toString().compareTo(new TreeMap<>(b).toString());
  }
}
