package io.gpuremediator.sweep;

import io.gpuremediator.action.DiagnoseAction.DiagnoseSpec;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.node.Taint;
import io.gpuremediator.safety.SafetyGate.Candidate;
import io.gpuremediator.workload.NodeJob;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A sweep's Job: the first {@code diagnose} step of its playbook, pinned to the node, of the sweep's PriorityClass,
 * tolerating the node's own taints (a GPU pool's {@code nvidia.com/gpu} one), labelled {@value #LABEL} with the sweep's
 * name. It is kept as long as {@code every} after it finished, at most a day: what a restart learns when each node
 * was last swept from.
 */
final class SweepJobs {
  /** The label every sweep Job carries, its value the sweep's name. */
  static final String LABEL = NodeKeys.SWEEP_LABEL;
  private static final Duration MAX_KEEP = Duration.ofDays(1);

  private SweepJobs() {}

  static NodeJob of(SweepPolicy sweep, DiagnoseSpec spec, NodeInfo node, String namespace, Instant now) {
    List<String> tolerations = node.taints().stream().map(Taint::key).distinct().toList();
    Duration keep = sweep.every().compareTo(MAX_KEEP) < 0 ? sweep.every() : MAX_KEEP;
    return new NodeJob(namespace, name(sweep.name(), node.name(), now), node.name(), "sweep", spec.image(), spec.command(),
        Map.of(), spec.timeout(), keep, Map.of(LABEL, sweep.name()), tolerations, false, false, List.of(),
        Optional.of(sweep.priorityClass()));
  }

  /** {@code gpu-sweep-} and a hash of the sweep, the node and the start: a new name for each run. */
  static String name(String sweep, String node, Instant started) {
    return "gpu-sweep-" + hash(sweep + "/" + node + "/" + started.getEpochSecond()).substring(0, 16);
  }

  /** A node a sweep holds, as the gate counts it: out of service, of no playbook's rate or cooldown. */
  static Candidate candidate(NodeInfo n, String playbook) {
    return new Candidate(n, playbook, true, Optional.empty(), Optional.empty());
  }

  /** The key of a sweep's last start on a node. */
  static String key(String sweep, String node) {
    return sweep + "/" + node;
  }

  static String hash(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
  }
}
