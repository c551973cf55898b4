package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.gpuremediator.node.NodeKeys;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/** Builds the core/v1 Events we record, on nodes and on our own objects, in one shape. */
final class KubeEvents {
  private static final int MAX_MESSAGE = 1024;

  private KubeEvents() {}

  /**
   * An Event about {@code kind/name} (in {@code objectNamespace}, or cluster-scoped when null), stored in
   * {@code namespace}.
   */
  static Event of(String namespace, String kind, String objectNamespace, String name, String type, String reason,
      String message, Instant time, String instance) {
    return of(namespace, kind, objectNamespace, name, null, type, reason, message, time, instance);
  }

  /** The same, about the object of this {@code uid} (a pod: never a new one that took an old one's name). */
  static Event of(String namespace, String kind, String objectNamespace, String name, String uid, String type,
      String reason, String message, Instant time, String instance) {
    String stamp = time.truncatedTo(ChronoUnit.SECONDS).toString();
    return new EventBuilder()
        .withNewMetadata().withNamespace(namespace)
        .withName(name + "." + UUID.randomUUID().toString().replace("-", "").substring(0, 16)).endMetadata()
        .withNewInvolvedObject().withApiVersion("v1").withKind(kind).withNamespace(objectNamespace).withName(name)
        .withUid(uid).endInvolvedObject()
        .withType(type).withReason(reason)
        .withMessage(message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE - 3) + "..." : message)
        .withFirstTimestamp(stamp).withLastTimestamp(stamp).withCount(1)
        .withNewSource().withComponent(NodeKeys.COMPONENT).endSource()
        .withReportingComponent(NodeKeys.COMPONENT).withReportingInstance(instance)
        .build();
  }
}
