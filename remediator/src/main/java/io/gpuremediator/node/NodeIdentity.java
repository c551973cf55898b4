package io.gpuremediator.node;

import java.util.Objects;
import java.util.Optional;

/**
 * Which machine a Node is, read from the API server now: what acting outside Kubernetes (a cloud instance, a BMC) has
 * to be sure of.
 *
 * @param providerId {@code spec.providerID}; empty when it has none
 * @param systemUuid {@code status.nodeInfo.systemUUID} (SMBIOS's system UUID, as the kubelet read it); empty when none
 */
public record NodeIdentity(Optional<String> providerId, Optional<String> systemUuid) {
  /** What a port that is not a Kubernetes API knows: nothing. */
  public static final NodeIdentity UNKNOWN = new NodeIdentity(Optional.empty(), Optional.empty());

  /** Checks the parts. */
  public NodeIdentity {
    Objects.requireNonNull(providerId, "providerId");
    Objects.requireNonNull(systemUuid, "systemUuid");
  }
}
