package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPUs each node publishes in the ResourceSlices of one DRA driver, kept by a watch of every slice (a watch of
 * slices by field is what the API server serves too, but one of all slices costs no more here: a node has a few): a
 * slice's count is its devices of type {@code gpu}, or all of them where the driver types none, taken as the informer
 * stores it (its devices are not kept). Started on the first read, which waits for the initial list (bounded); until
 * it has one, every count is unknown.
 */
final class PublishedGpuWatch implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(PublishedGpuWatch.class);
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final Duration FIRST_LIST = Duration.ofSeconds(10);

  /** A slice's node and the GPUs it publishes. */
  private record Published(String node, int gpus) {}

  private final Map<String, Published> bySlice = new ConcurrentHashMap<>();
  private final Map<String, Integer> byNode = new ConcurrentHashMap<>();
  private final AtomicLong changes = new AtomicLong();
  private final String driver;
  private final SharedIndexInformer<GenericKubernetesResource> informer;
  private volatile boolean absent;

  PublishedGpuWatch(KubernetesClient client, ResourceDefinitionContext slices, String driver) {
    this.driver = driver;
    this.informer = client.genericKubernetesResources(slices).runnableInformer(0);
    informer.itemStore(new CountingStore());
    informer.exceptionHandler((started, t) -> {
      if (notServed(t)) {
        absent = true; // no resource.k8s.io/v1 (Kubernetes before 1.34): nothing is published, nothing to retry
        LOGGER.info("no ResourceSlices API here: GPU counts come from the nodes alone");
        return false;
      }
      LOGGER.warn("the watch of {}'s ResourceSlices failed ({}); retrying", driver, t.toString());
      return true;
    });
  }

  /**
   * The informer's store: each slice is counted as it is stored, and kept without its devices (a slice of eight GPUs
   * with their attributes is kilobytes; 20,000 of them would be most of the service's heap). The informer needs only
   * the slice's name and version of what it stores.
   */
  private final class CountingStore extends BasicItemStore<GenericKubernetesResource> {
    CountingStore() {
      super(Cache::metaNamespaceKeyFunc);
    }

    @Override
    public GenericKubernetesResource put(String key, GenericKubernetesResource slice) {
      count(slice);
      Object spec = slice.getAdditionalProperties().get("spec");
      if (spec instanceof Map<?, ?> m) {
        Map<String, Object> kept = new HashMap<>();
        kept.put("driver", m.get("driver"));
        kept.put("nodeName", m.get("nodeName"));
        slice.getAdditionalProperties().put("spec", kept);
      }
      return super.put(key, slice);
    }

    @Override
    public GenericKubernetesResource remove(String key) {
      GenericKubernetesResource gone = super.remove(key);
      if (gone != null) {
        publish(gone.getMetadata().getName(), null);
      }
      return gone;
    }
  }

  /** Starts the watch and waits (bounded) for its first list. */
  void start() {
    try {
      informer.start().toCompletableFuture().get(FIRST_LIST.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (!absent) {
        LOGGER.warn("the ResourceSlices of {} were not listed within {}: GPU counts from them unknown until they are ({})",
            driver, FIRST_LIST, e.toString());
      }
    }
  }

  /** Whether a failure (or one of its causes) is the API server's 404 for a resource it does not serve. */
  static boolean notServed(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof KubernetesClientException e && e.getCode() == 404) {
        return true;
      }
    }
    return false;
  }

  /** Whether the watch is still running (it stops for good where the API server serves no ResourceSlices). */
  boolean watching() {
    return informer.isRunning();
  }

  /**
   * The GPUs the node publishes, summed over its slices; empty when it publishes none or nothing is listed yet. A map
   * read: the GPU limits ask it of every selected node at each count.
   */
  OptionalInt on(String node) {
    Integer gpus = informer.hasSynced() ? byNode.get(node) : null;
    return gpus == null ? OptionalInt.empty() : OptionalInt.of(gpus);
  }

  /** Moves whenever {@link #on} may answer otherwise: -1 until the first list, then the count of slices written or gone. */
  long generation() {
    return informer.hasSynced() ? changes.get() : -1;
  }

  /** Records what a slice publishes now (or, {@code now} null, that it is gone), keeping the node's sum. */
  private synchronized void publish(String slice, Published now) {
    changes.incrementAndGet();
    Published before = now == null ? bySlice.remove(slice) : bySlice.put(slice, now);
    if (before != null) {
      byNode.computeIfPresent(before.node(), (n, sum) -> sum - before.gpus() == 0 && !hasSlice(n) ? null : sum - before.gpus());
    }
    if (now != null) {
      byNode.merge(now.node(), now.gpus(), Integer::sum);
    }
  }

  private boolean hasSlice(String node) {
    return bySlice.values().stream().anyMatch(p -> p.node().equals(node));
  }

  private void count(GenericKubernetesResource slice) {
    JsonNode spec = JSON.valueToTree(slice).path("spec");
    if (!driver.equals(spec.path("driver").asText())) {
      return;
    }
    int gpus = 0;
    for (JsonNode d : spec.path("devices")) {
      JsonNode type = d.path("attributes").path("type").path("string");
      gpus += type.isMissingNode() || "gpu".equals(type.asText()) ? 1 : 0;
    }
    publish(slice.getMetadata().getName(), new Published(spec.path("nodeName").asText(), gpus));
  }

  @Override
  public void close() {
    informer.stop();
  }
}
