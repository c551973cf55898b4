package io.gpuremediator.pipeline;

import java.time.Duration;

/**
 * How the pipeline runs: the simulated fleet's size, the intervals, and the remediator's safety section
 * (null keeps the service's defaults, which the demo's story relies on).
 *
 * @param interval Prometheus' scrape and rule evaluation interval
 * @param groupWait Alertmanager's group_wait on every route that sets one
 * @param groupInterval Alertmanager's group_interval on every route that sets one
 * @param safetyYaml the remediator config's {@code safety:} value as YAML flow, or null
 * @param verbose whether the raw webhooks are shown (they then pass through a tee)
 */
public record Options(int gpuNodes, int trnNodes, Duration interval, Duration groupWait, Duration groupInterval, String safetyYaml,
    boolean verbose) {

  /**
   * The demo: 29 GPU nodes and 2 Trainium nodes, 1 s everything. The story faults thirteen nodes within ten minutes before
   * its storm: nine it quarantines (the XID 79 and XID 48 nodes, the one whose driver asks for a reset, the spare
   * pool's node and the idle node its sweep finds faulty, repaired and back before the two lost GPUs and the InfiniBand port fire, and the node replaced through Karpenter once the first
   * lost GPU's node is back, so at most three are out at once), one GPU of a DRA node it fences (the node stays in
   * service) and three trays of one NVLink clique whose fabric fails together (one incident: at most two of them
   * quarantined, when Alertmanager splits them into webhooks), so max_unavailable is 5 and the breaker opens on more
   * than 13 nodes firing: the storm's first node trips it, however Alertmanager splits the storm into webhooks. The
   * GPU budget allows the 40 GPUs of those 5 nodes and 8 fenced. The clique's incident pages gpu-oncall, as the breaker
   * does. The story starts more quarantines within the hour than the default rate_limit of 10/1h allows (on a slow
   * machine the clique's first two trays fire before the node beyond repair), so it is 20/1h: the breaker, not the rate,
   * is what stops the storm.
   */
  public static Options demo(boolean verbose) {
    return new Options(29, 2, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
        "{max_unavailable: 5, max_unavailable_gpus: 48, rate_limit: 20/1h, breaker: {nodes: 13, window: 10m}, page: [gpu-oncall], domains: [{label: "
            + "nvidia.com/gpu.clique, max_unavailable: 100%, incident: {nodes: 2, window: 15m}}]}", verbose);
  }

  public Options withSafety(String yaml) {
    return new Options(gpuNodes, trnNodes, interval, groupWait, groupInterval, yaml, verbose);
  }
}
