package io.gpuremediator.episode;

import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watches that have the loop look at a node when something its episodes hold outside the node changes: their
 * steps' Jobs (the Job's node), and our DeviceTaintRules (a rule deleted: the node whose episode fenced with it, where
 * a human's override ends the episode now rather than at its next look); and, to be stopped with them, the watch of
 * the ResourceSlices the GPU counts read.
 */
final class HeldObjectWatches implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(HeldObjectWatches.class);
  private final List<AutoCloseable> watches;

  private HeldObjectWatches(List<AutoCloseable> watches) {
    this.watches = watches;
  }

  /**
   * Starts both watches; {@code look} asks for a look at a node. {@code slices}, the loop's ResourceSlice watch, is
   * stopped with them.
   */
  static HeldObjectWatches start(StepPorts ports, Cluster cluster, Consumer<String> look, AutoCloseable slices) {
    AutoCloseable jobs = ports.workloads().watchJobs(ports.jobNamespace(), EpisodeNames.JOB_EPISODE_LABEL, look);
    AutoCloseable rules = ports.devices().watchRules(rule -> {
      for (NodeInfo n : cluster.nodes()) {
        for (Episode e : n.ledger().episodes().values()) {
          if (e.fenced().stream().map(FencedGpu::rule).anyMatch(rule::equals)) {
            look.accept(n.name());
          }
        }
      }
    });
    return new HeldObjectWatches(List.of(jobs, rules, slices));
  }

  @Override
  public void close() {
    watches.forEach(HeldObjectWatches::stop);
  }

  /** Stops a watch, saying so when it does not stop cleanly. */
  static void stop(AutoCloseable watch) {
    try {
      watch.close();
    } catch (Exception e) {
      LOGGER.warn("a watch did not stop cleanly: {}", e.toString());
    }
  }
}
