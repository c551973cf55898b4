package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuremediator.device.Device;
import io.gpuremediator.device.DeviceRef;
import io.gpuremediator.device.DeviceTaint;
import io.gpuremediator.device.Devices;
import io.gpuremediator.device.FenceRule;
import io.gpuremediator.node.ClusterException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * DRA through fabric8's generic resources ({@code resource.k8s.io/v1}: fabric8 7.8.0 has no typed DeviceTaintRule).
 * ResourceSlices are listed by the fields the API server supports for them ({@code spec.nodeName}, {@code spec.driver});
 * a device's holders are found through the node's pods (by {@code spec.nodeName}) and the claims they name, each read
 * for its allocation and {@code status.reservedFor} (no field selects claims by device, and listing every claim of a
 * large cluster at each look would cost the API server more than the node's few). Every call takes its place in the
 * API throttle the other adapters share. Our rules are also watched (list and watch, by our label): a human's delete is
 * looked at when it happens, and a look reads a rule from the watch's store.
 */
final class Fabric8Devices implements Devices {
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final String GROUP = "resource.k8s.io";
  private static final String VERSION = "v1";
  private static final ResourceDefinitionContext SLICES = context("ResourceSlice", "resourceslices", false);
  private static final ResourceDefinitionContext RULES = context("DeviceTaintRule", "devicetaintrules", false);
  private static final ResourceDefinitionContext CLAIMS = context("ResourceClaim", "resourceclaims", true);

  private final KubernetesClient client;
  private final ApiThrottle throttle;
  private final PublishedWatches published;
  /** The watch of our rules while one runs: the cache {@link #rule} reads first. */
  private volatile RuleWatch rules;

  Fabric8Devices(KubernetesClient client, ApiThrottle throttle) {
    this.client = client;
    this.throttle = throttle;
    this.published = new PublishedWatches(client, SLICES);
  }

  @Override
  public AutoCloseable watchPublished(String driver) {
    return published.watch(driver);
  }

  /** Whether a watch of the driver's ResourceSlices runs. */
  boolean watching(String driver) {
    return published.watching(driver);
  }

  /** Stops every ResourceSlice watch, owned or not: the client they read through is closing. */
  void close() {
    published.close();
  }

  @Override
  public OptionalInt publishedGpus(String node, String driver) {
    return published.gpus(node, driver);
  }

  @Override
  public long publishedGeneration(String driver) {
    return published.generation(driver);
  }

  @Override
  public List<Device> onNode(String node, String driver) throws ClusterException {
    List<GenericKubernetesResource> slices;
    try {
      slices = throttle.read(() -> client.genericKubernetesResources(SLICES).withField("spec.nodeName", node)
          .withField("spec.driver", driver).list()).getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of(); // no resource.k8s.io/v1 here (Kubernetes before 1.34): no device is published
      }
      throw ApiFailures.of("list the ResourceSlices of " + driver + " on node " + node, e);
    }
    List<Device> out = new ArrayList<>();
    for (GenericKubernetesResource slice : slices) {
      JsonNode spec = JSON.valueToTree(slice).path("spec");
      if (!node.equals(spec.path("nodeName").asText()) || !driver.equals(spec.path("driver").asText())) {
        continue; // a server that ignored the field selector: another node's GPU is never ours to fence
      }
      for (JsonNode d : spec.path("devices")) {
        Map<String, String> attributes = new LinkedHashMap<>();
        d.path("attributes").fields().forEachRemaining(a -> a.getValue().fields()
            .forEachRemaining(v -> attributes.put(a.getKey(), v.getValue().asText())));
        List<DeviceTaint> taints = new ArrayList<>();
        for (JsonNode t : d.path("taints")) {
          taints.add(taint(t));
        }
        out.add(new Device(new DeviceRef(spec.path("driver").asText(), spec.path("pool").path("name").asText(),
            d.path("name").asText()), attributes, taints));
      }
    }
    return out;
  }

  @Override
  public void fence(FenceRule rule) throws ClusterException {
    Map<String, Object> selector = Map.of("driver", rule.device().driver(), "pool", rule.device().pool(), "device",
        rule.device().device());
    Map<String, Object> taint = new LinkedHashMap<>();
    taint.put("key", rule.taint().key());
    if (!rule.taint().value().isEmpty()) {
      taint.put("value", rule.taint().value());
    }
    taint.put("effect", rule.taint().effect());
    GenericKubernetesResource object = new GenericKubernetesResourceBuilder().withApiVersion(GROUP + "/" + VERSION)
        .withKind("DeviceTaintRule").withNewMetadata().withName(rule.name()).withLabels(rule.labels()).endMetadata()
        .addToAdditionalProperties("spec", Map.of("deviceSelector", selector, "taint", taint)).build();
    try {
      throttle.write(() -> client.genericKubernetesResources(RULES).resource(object).create());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw ApiFailures.of("create DeviceTaintRule " + rule.name() + " on " + rule.device(), e);
      }
    }
  }

  @Override
  public Optional<FenceRule> rule(String name) throws ClusterException {
    RuleWatch watch = rules;
    Optional<GenericKubernetesResource> cached = watch == null ? Optional.empty() : watch.cached(name);
    if (cached.isPresent()) {
      return fenceRule(name, cached.get());
    }
    try {
      return fenceRule(name, throttle.read(() -> client.genericKubernetesResources(RULES).withName(name).get()));
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("read DeviceTaintRule " + name, e);
    }
  }

  private static Optional<FenceRule> fenceRule(String name, GenericKubernetesResource found) {
    if (found == null || found.getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty();
    }
    JsonNode rule = JSON.valueToTree(found);
    JsonNode spec = rule.path("spec");
    JsonNode selector = spec.path("deviceSelector");
    Map<String, String> labels = found.getMetadata().getLabels();
    return Optional.of(new FenceRule(name, new DeviceRef(selector.path("driver").asText(),
        selector.path("pool").asText(), selector.path("device").asText()), taint(spec.path("taint")),
        labels == null ? Map.of() : labels, evictionInProgress(rule.path("status"))));
  }

  /** The message of the rule's {@code EvictionInProgress} condition while it is True (KEP-5055), else empty. */
  private static Optional<String> evictionInProgress(JsonNode status) {
    for (JsonNode c : status.path("conditions")) {
      if ("EvictionInProgress".equals(c.path("type").asText()) && "True".equals(c.path("status").asText())) {
        return Optional.of(c.path("message").asText(""));
      }
    }
    return Optional.empty();
  }

  @Override
  public List<String> rulesLabelled(String key, String value) throws ClusterException {
    try {
      return throttle.read(() -> client.genericKubernetesResources(RULES).withLabel(key, value).list()).getItems().stream()
          .map(r -> r.getMetadata().getName()).toList();
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("list the DeviceTaintRules labelled " + key + "=" + value, e);
    }
  }

  @Override
  public void unfence(String name) throws ClusterException {
    try {
      throttle.write(() -> client.genericKubernetesResources(RULES).withName(name).delete());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw ApiFailures.of("delete DeviceTaintRule " + name, e);
      }
    }
  }

  @Override
  public List<String> holders(String node, DeviceRef device) throws ClusterException {
    List<Pod> pods;
    try {
      pods = throttle.read(() -> client.pods().inAnyNamespace().withField("spec.nodeName", node).list()).getItems();
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("list pods on node " + node, e);
    }
    List<String> out = new ArrayList<>();
    for (Pod pod : pods) {
      String namespace = pod.getMetadata().getNamespace();
      for (String claimName : claimsOf(pod)) {
        GenericKubernetesResource claim;
        try {
          claim = throttle.read(() -> client.genericKubernetesResources(CLAIMS).inNamespace(namespace).withName(claimName).get());
        } catch (KubernetesClientException e) {
          throw ApiFailures.of("read ResourceClaim " + namespace + "/" + claimName, e);
        }
        if (claim != null && holds(JSON.valueToTree(claim).path("status"), device, pod.getMetadata().getName())) {
          out.add(namespace + "/" + pod.getMetadata().getName());
        }
      }
    }
    return out;
  }

  /**
   * The claims a pod names: its own ({@code spec.resourceClaims}), those made for it from a template
   * ({@code status.resourceClaimStatuses}), and the one the scheduler made for its extended resources backed by DRA
   * (KEP-5004: {@code status.extendedResourceClaimStatus}; a pod asking for {@code nvidia.com/gpu} on a DRA node).
   */
  private static Set<String> claimsOf(Pod pod) {
    Set<String> names = new TreeSet<>();
    if (pod.getSpec() != null && pod.getSpec().getResourceClaims() != null) {
      pod.getSpec().getResourceClaims().stream().map(PodResourceClaim::getResourceClaimName).filter(Objects::nonNull)
          .forEach(names::add);
    }
    if (pod.getStatus() != null && pod.getStatus().getResourceClaimStatuses() != null) {
      pod.getStatus().getResourceClaimStatuses().stream().map(PodResourceClaimStatus::getResourceClaimName)
          .filter(Objects::nonNull).forEach(names::add);
    }
    if (pod.getStatus() != null && pod.getStatus().getExtendedResourceClaimStatus() != null
        && pod.getStatus().getExtendedResourceClaimStatus().getResourceClaimName() != null) {
      names.add(pod.getStatus().getExtendedResourceClaimStatus().getResourceClaimName());
    }
    return names;
  }

  /**
   * Whether a claim's status allocates the device and reserves it for the pod, or for a PodGroup (KEP-5729: a claim
   * shared by a gang is reserved for the group, {@code scheduling.k8s.io} {@code podgroups}, not for each pod; a pod on
   * the node that names it uses it).
   */
  private static boolean holds(JsonNode status, DeviceRef device, String pod) {
    boolean allocated = false;
    for (JsonNode r : status.path("allocation").path("devices").path("results")) {
      allocated |= device.driver().equals(r.path("driver").asText()) && device.pool().equals(r.path("pool").asText())
          && device.device().equals(r.path("device").asText());
    }
    boolean reserved = false;
    for (JsonNode user : status.path("reservedFor")) {
      String resource = user.path("resource").asText();
      reserved |= "pods".equals(resource) && user.path("apiGroup").asText("").isEmpty() && pod.equals(user.path("name").asText())
          || "podgroups".equals(resource) && "scheduling.k8s.io".equals(user.path("apiGroup").asText());
    }
    return allocated && reserved;
  }

  @Override
  public AutoCloseable watchRules(Consumer<String> deleted) {
    RuleWatch watch = RuleWatch.start(client, RULES, deleted);
    rules = watch;
    return () -> {
      if (rules == watch) {
        rules = null;
      }
      watch.close();
    };
  }

  private static DeviceTaint taint(JsonNode t) {
    return new DeviceTaint(t.path("key").asText(), t.path("value").asText(""), t.path("effect").asText());
  }

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder().withGroup(GROUP).withVersion(VERSION).withKind(kind)
        .withPlural(plural).withNamespaced(namespaced).build();
  }
}
