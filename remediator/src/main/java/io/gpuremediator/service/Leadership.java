package io.gpuremediator.service;

import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.kube.LeaderElection;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.gpuremediator.safety.FleetGate;
import io.gpuremediator.safety.FleetStore;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who acts: with leader election, only the leader loads the fleet state and acts; without, this instance does. A load
 * that fails (API down) is retried in the background; until it succeeds the service is not ready and every remediation
 * is refused.
 */
final class Leadership implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(Leadership.class);
  private static final long FLEET_STATE_RETRY_MILLIS = 2000;

  private final RemediatorConfig.LeaderElection config;
  private final KubeApi kube;
  private final String identity;
  private final FleetGate gate;
  private final RemediatorMetrics metrics;
  private volatile LeaderElection election;

  Leadership(RemediatorConfig.LeaderElection config, KubeApi kube, String identity, FleetGate gate,
      RemediatorMetrics metrics) {
    this.config = config;
    this.kube = kube;
    this.identity = identity;
    this.gate = gate;
    this.metrics = metrics;
  }

  /** Whether this instance leads now (always, without leader election). */
  boolean isLeader() {
    LeaderElection e = election;
    return e == null || e.isLeader();
  }

  void start(Vertx vertx, WorkerExecutor workers) {
    if (config.enabled()) {
      election = kube.leaderElection(config.namespace(), config.lease(), identity, config.leaseDuration());
      election.start(() -> {
        tryLoadFleetState();
        metrics.leader(true);
      }, () -> {
        gate.unload();
        metrics.leader(false);
      });
    } else {
      metrics.leader(true);
      tryLoadFleetState();
    }
    vertx.setPeriodic(FLEET_STATE_RETRY_MILLIS, id -> {
      if (!gate.isLoaded() && isLeader()) {
        workers.executeBlocking(() -> {
          tryLoadFleetState();
          return null;
        }, false);
      }
    });
  }

  private void tryLoadFleetState() {
    try {
      gate.load();
    } catch (FleetStore.FleetStoreException e) {
      LOGGER.warn("fleet safety state not loaded ({}); retrying, and refusing every remediation meanwhile", e.getMessage());
    }
  }

  @Override
  public void close() {
    if (election != null) {
      election.close();
    }
  }
}
