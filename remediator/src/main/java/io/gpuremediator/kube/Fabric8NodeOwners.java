package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeOwner;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The objects that own nodes (Karpenter NodeClaims, Cluster API Machines), read through fabric8's generic resource API
 * with their definitions given (no discovery, no generated model). A deletion is a raw request: the DSL cannot send a
 * uid precondition, and without one a delete could remove an object recreated under the same name.
 */
final class Fabric8NodeOwners {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final ApiThrottle throttle;

  Fabric8NodeOwners(KubernetesClient client, ApiThrottle throttle) {
    this.client = client;
    this.throttle = throttle;
  }

  /**
   * The object of the kind whose status names the node: a list (no field selector reaches the status of a custom
   * resource), in every namespace.
   */
  Optional<NodeOwner> ownerOf(NodeOwner.Kind kind, String node) throws ClusterException {
    try {
      var resources = client.genericKubernetesResources(context(kind));
      List<GenericKubernetesResource> items = throttle.read(() -> (kind.namespaced() ? resources.inAnyNamespace()
          : resources).list()).getItems();
      for (GenericKubernetesResource item : items) {
        if (node.equals(nodeOf(item, kind.nodeField()))) {
          return Optional.of(owner(kind, item));
        }
      }
      return Optional.empty();
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("list " + kind.plural() + " of node " + node, e);
    }
  }

  Optional<NodeOwner> owner(NodeOwner.Kind kind, String namespace, String name) throws ClusterException {
    try {
      var resources = client.genericKubernetesResources(context(kind));
      GenericKubernetesResource r = throttle.read(() -> (namespace.isEmpty() ? resources.withName(name)
          : resources.inNamespace(namespace).withName(name)).get());
      return r == null ? Optional.empty() : Optional.of(owner(kind, r));
    } catch (KubernetesClientException e) {
      throw ApiFailures.of("get " + kind.kind() + " " + (namespace.isEmpty() ? "" : namespace + "/") + name, e);
    }
  }

  void delete(NodeOwner owner) throws ClusterException {
    ObjectNode options = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "DeleteOptions")
        .put("propagationPolicy", "Background");
    if (!owner.uid().isEmpty()) {
      options.putObject("preconditions").put("uid", owner.uid());
    }
    String what = "delete " + owner;
    HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(url(owner))
        .delete("application/json", options.toString()).build();
    HttpResponse<String> answer = throttle.write(() -> RawRequests.send(client, request, what));
    int code = answer.code();
    if (code / 100 == 2 || code == 404) {
      return; // 404: gone already, which is what was asked
    }
    // 409 is a failed uid precondition: another object has the name now; a fresh look decides what it is.
    boolean transientFailure = code == 409 || code == 429 || code >= 500;
    throw new ClusterException(what + " failed (HTTP " + code + "): " + answer.body(), transientFailure, null);
  }

  void annotate(NodeOwner owner, String key, String value) throws ClusterException {
    ObjectNode patch = JSON.createObjectNode();
    patch.putObject("metadata").putObject("annotations").put(key, value);
    HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(url(owner))
        .patch("application/merge-patch+json", patch.toString()).build();
    HttpResponse<String> answer = throttle.write(() -> RawRequests.send(client, request, "annotate " + owner));
    int code = answer.code();
    if (code / 100 != 2) {
      throw new ClusterException("annotate " + owner + " failed (HTTP " + code + "): " + answer.body(),
          code == 409 || code == 429 || code >= 500, null);
    }
  }

  private String url(NodeOwner owner) {
    NodeOwner.Kind kind = owner.kind();
    return RawRequests.base(client) + "/apis/" + kind.apiVersion()
        + (owner.namespace().isEmpty() ? "" : "/namespaces/" + RawRequests.encode(owner.namespace()))
        + "/" + kind.plural() + "/" + RawRequests.encode(owner.name());
  }

  private static ResourceDefinitionContext context(NodeOwner.Kind kind) {
    String[] groupVersion = kind.apiVersion().split("/", 2);
    return new ResourceDefinitionContext.Builder().withGroup(groupVersion[0]).withVersion(groupVersion[1])
        .withKind(kind.kind()).withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
  }

  /** {@code status.<field>}, or its {@code name} when it is a reference ({@code status.nodeRef.name} of a Machine). */
  private static String nodeOf(GenericKubernetesResource r, String statusField) {
    Object status = r.getAdditionalProperties().get("status");
    Object value = status instanceof Map<?, ?> m ? m.get(statusField) : null;
    if (value instanceof Map<?, ?> ref) {
      value = ref.get("name");
    }
    return value instanceof String s ? s : null;
  }

  private static NodeOwner owner(NodeOwner.Kind kind, GenericKubernetesResource r) {
    ObjectMeta meta = r.getMetadata();
    Optional<String> controller = Optional.ofNullable(meta.getOwnerReferences()).orElse(List.of()).stream()
        .filter(o -> Boolean.TRUE.equals(o.getController())).findFirst().map(Fabric8NodeOwners::ref);
    return new NodeOwner(kind, meta.getNamespace(), meta.getName(), meta.getUid(), meta.getDeletionTimestamp() != null,
        controller, meta.getAnnotations());
  }

  private static String ref(OwnerReference o) {
    return o.getKind() + "/" + o.getName();
  }
}
