package io.gpuremediator.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The ResourceSlice watches of one client, one per DRA driver, and who holds each: a watch is started by its first
 * owner (or by a first read, which no one owns), and stopped when its last owner lets it go, so a stopped service keeps
 * no watch that goes on retrying against an API server long gone; closing stops them all.
 */
final class PublishedWatches {
  private final KubernetesClient client;
  private final ResourceDefinitionContext slices;
  private final Map<String, PublishedGpuWatch> byDriver = new ConcurrentHashMap<>();
  /** How many owners hold each driver's watch (guarded by itself). */
  private final Map<String, Integer> owners = new HashMap<>();

  PublishedWatches(KubernetesClient client, ResourceDefinitionContext slices) {
    this.client = client;
    this.slices = slices;
  }

  /** Holds the driver's watch, starting it (and waiting, bounded, for its list) when none runs; closing lets it go. */
  AutoCloseable watch(String driver) {
    synchronized (owners) {
      owners.merge(driver, 1, Integer::sum);
    }
    gpus("", driver);
    AtomicBoolean closed = new AtomicBoolean();
    return () -> {
      if (closed.compareAndSet(false, true)) {
        release(driver);
      }
    };
  }

  /** The GPUs the node publishes through the driver, from its watch (started here when none runs). */
  OptionalInt gpus(String node, String driver) {
    return byDriver.computeIfAbsent(driver, d -> {
      PublishedGpuWatch w = new PublishedGpuWatch(client, slices, d);
      w.start();
      return w;
    }).on(node);
  }

  /** A number that moves whenever the driver's watch may answer {@link #gpus} otherwise; no watch yet is one more value. */
  long generation(String driver) {
    PublishedGpuWatch w = byDriver.get(driver);
    return w == null ? -2 : w.generation();
  }

  /** Whether the driver's watch runs. */
  boolean watching(String driver) {
    PublishedGpuWatch w = byDriver.get(driver);
    return w != null && w.watching();
  }

  /** Stops every watch, owned or not. */
  void close() {
    synchronized (owners) {
      owners.clear();
      byDriver.values().forEach(PublishedGpuWatch::close);
      byDriver.clear();
    }
  }

  /** One owner is done with the driver's watch; the last one stops it. */
  private void release(String driver) {
    PublishedGpuWatch stopped;
    synchronized (owners) {
      if (owners.merge(driver, -1, Integer::sum) > 0) {
        return;
      }
      owners.remove(driver);
      stopped = byDriver.remove(driver);
    }
    if (stopped != null) {
      stopped.close();
    }
  }
}
