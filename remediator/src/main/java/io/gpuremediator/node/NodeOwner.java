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
  /**
   * A kind of object that owns nodes, as the API serves it ({@link ReplaceProvider#ROWS} names them).
   *
   * @param apiVersion the group/version the object is read and written at
   * @param kind the API kind
   * @param plural the resource name (what RBAC names)
   * @param namespaced whether objects live in namespaces (listed in every namespace)
   * @param nodeField the field of {@code status} that names the node: a string, or a reference with a {@code name}
   */
  public record Kind(String apiVersion, String kind, String plural, boolean namespaced, String nodeField) {}

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
