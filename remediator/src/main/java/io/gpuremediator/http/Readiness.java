package io.gpuremediator.http;

import java.util.Optional;

/** Whether the service may act: leader, Kubernetes reachable, playbooks loaded. */
@FunctionalInterface
public interface Readiness {
  /** Why the service is not ready, or empty when it is. Must not block. */
  Optional<String> notReadyBecause();
}
