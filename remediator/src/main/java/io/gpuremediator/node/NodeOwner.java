package io.gpuremediator.node;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The object through which the controller that provisioned a node replaces it, as read from the API: a Karpenter
 * NodeClaim (cluster-scoped) or a Cluster API Machine.
 *
 * @param namespace empty for a cluster-scoped object
 * @param uid the object's uid (a deletion names it, so an object recreated under the name is never the one deleted)
 * @param deleting it carries a deletionTimestamp: its controller is already removing it
 * @param controller its controller ownerReference as {@code Kind/name} (a Machine's MachineSet), if any
 * @param annotations its annotations
 */
public record NodeOwner(Kind kind, String namespace, String name, String uid, boolean deleting,
    Optional<String> controller, Map<String, String> annotations) {
  /** The kinds a replacement goes through. */
  public enum Kind {
    /** {@code karpenter.sh/v1} NodeClaim: deleting it has Karpenter drain and terminate the node. */
    NODE_CLAIM("karpenter.sh/v1", "NodeClaim", "nodeclaims"),
    /** {@code cluster.x-k8s.io/v1beta1} Machine: deleting it has its MachineSet create another. */
    MACHINE("cluster.x-k8s.io/v1beta1", "Machine", "machines");

    private final String apiVersion;
    private final String kind;
    private final String plural;

    Kind(String apiVersion, String kind, String plural) {
      this.apiVersion = apiVersion;
      this.kind = kind;
      this.plural = plural;
    }

    /** The group/version the object is read and written at. */
    public String apiVersion() {
      return apiVersion;
    }

    /** The API kind. */
    public String kind() {
      return kind;
    }

    /** The resource name (what RBAC names). */
    public String plural() {
      return plural;
    }
  }

  /** Validates presence; copies the annotations. */
  public NodeOwner {
    Objects.requireNonNull(kind, "kind");
    namespace = namespace == null ? "" : namespace;
    Objects.requireNonNull(name, "name");
    uid = uid == null ? "" : uid;
    Objects.requireNonNull(controller, "controller");
    annotations = Map.copyOf(annotations == null ? Map.of() : annotations);
  }

  /** How decisions name it: {@code NodeClaim default-x9wxq}, {@code Machine team-a/gpu-md-0-abcde}. */
  @Override
  public String toString() {
    return kind.kind() + " " + (namespace.isEmpty() ? "" : namespace + "/") + name;
  }
}
