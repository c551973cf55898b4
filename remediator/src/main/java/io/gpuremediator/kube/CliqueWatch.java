package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVLink clique of each node as NVIDIA's DRA driver publishes it, where GPU Feature Discovery's
 * {@code nvidia.com/gpu.clique} label is not set (the GPU Operator's DRA stack runs no GFD). The driver publishes no
 * clique attribute in its ResourceSlices; its ComputeDomain daemons write each node's {@code cliqueID}
 * ({@code <clusterUUID>.<cliqueId>}, GFD's format: tests/real/dra/nvidia-dra-driver-cliqueid.go.txt) into
 * {@code ComputeDomainClique} objects ({@code resource.nvidia.com/v1beta1}, the default since driver 0.3), one per
 * ComputeDomain and clique, {@code daemons[].nodeName} and {@code daemons[].cliqueID}. A node no ComputeDomain uses
 * has none: its clique is unknown, and a domain limit on the label says so. A cluster without the CRD answers 404:
 * the watch stops there, and knows nothing.
 */
final class CliqueWatch implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(CliqueWatch.class);
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  static final ResourceDefinitionContext CLIQUES = new ResourceDefinitionContext.Builder()
      .withGroup("resource.nvidia.com").withVersion("v1beta1").withKind("ComputeDomainClique")
      .withPlural("computedomaincliques").withNamespaced(true).build();

  /** Per object (namespace/name), the clique of each node it names. */
  private final Map<String, Map<String, String>> byObject = new HashMap<>();
  private final Map<String, String> byNode = new ConcurrentHashMap<>();
  private final SharedIndexInformer<GenericKubernetesResource> informer;
  private final Consumer<String> changed;

  /** @param changed told the name of each node whose clique changed, on the watch's thread */
  CliqueWatch(KubernetesClient client, Consumer<String> changed) {
    this.changed = changed;
    this.informer = client.genericKubernetesResources(CLIQUES).inAnyNamespace().runnableInformer(0);
    informer.exceptionHandler((started, t) -> {
      if (PublishedGpuWatch.notServed(t)) {
        LOGGER.info("no ComputeDomainClique API here (NVIDIA's DRA driver not installed): cliques come from node labels");
        return false;
      }
      LOGGER.warn("the watch of ComputeDomainCliques failed ({}); retrying", t.toString());
      return true;
    });
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource o) {
        update(key(o), nodes(o));
      }

      @Override
      public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource o) {
        update(key(o), nodes(o));
      }

      @Override
      public void onDelete(GenericKubernetesResource o, boolean finalStateUnknown) {
        update(key(o), Map.of());
      }
    });
  }

  void start() {
    informer.start();
  }

  /** Whether the watch still runs (it stops for good where the API server serves no ComputeDomainCliques). */
  boolean running() {
    return informer.isRunning();
  }

  /** The clique published for the node; empty when none is. */
  Optional<String> of(String node) {
    return Optional.ofNullable(byNode.get(node));
  }

  private static String key(GenericKubernetesResource o) {
    return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  private static Map<String, String> nodes(GenericKubernetesResource o) {
    Map<String, String> out = new HashMap<>();
    for (JsonNode d : JSON.valueToTree(o).path("daemons")) {
      String node = d.path("nodeName").asText("");
      String clique = d.path("cliqueID").asText("");
      if (!node.isEmpty() && !clique.isEmpty()) {
        out.put(node, clique);
      }
    }
    return out;
  }

  /** Records what one object says now, and tells each node whose clique moved. */
  private void update(String object, Map<String, String> now) {
    Set<String> moved = new HashSet<>();
    synchronized (this) {
      Map<String, String> before = now.isEmpty() ? byObject.remove(object) : byObject.put(object, now);
      Set<String> touched = new HashSet<>(now.keySet());
      if (before != null) {
        touched.addAll(before.keySet());
      }
      for (String node : touched) {
        String was = byNode.get(node);
        String is = byObject.values().stream().map(m -> m.get(node)).filter(c -> c != null).findFirst().orElse(null);
        if (is == null) {
          byNode.remove(node);
        } else {
          byNode.put(node, is);
        }
        if (!Objects.equals(was, is)) {
          moved.add(node);
        }
      }
    }
    moved.forEach(changed);
  }

  @Override
  public void close() {
    informer.stop();
  }
}
