package io.gpuremediator.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.node.ClusterException;

/** What a failed API call means to the engine: transient (no answer, a conflict, throttled, a 5xx) or not. */
final class ApiFailures {
  private ApiFailures() {}

  /** The failure of {@code what}, saying its status and whether it is worth asking again. */
  static ClusterException of(String what, KubernetesClientException e) {
    int code = e.getCode();
    boolean transientFailure = code <= 0 || code == 409 || code == 429 || code >= 500;
    String status = code <= 0 ? "no answer" : "HTTP " + code;
    return new ClusterException(what + " failed (" + status + "): " + e.getMessage(), transientFailure, e);
  }
}
