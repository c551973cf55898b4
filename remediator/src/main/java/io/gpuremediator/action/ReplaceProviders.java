package io.gpuremediator.action;

import io.gpuremediator.node.ReplaceProvider;
import java.util.Map;
import java.util.function.Function;

/**
 * How each provider of {@link ReplaceProvider#ROWS} replaces a node: a provider through the Kubernetes API deletes its
 * owner object ({@link OwnerObjectReplacement}) unless it needs more (Cluster API's MachineHealthCheck hand-off); AWS
 * marks the instance in its Auto Scaling group.
 */
final class ReplaceProviders {
  /** The providers that are not plain owner-object deletions. */
  private static final Map<String, Function<ReplaceProvider, Replacement>> OWN_WAYS = Map.of(
      ReplaceProvider.AWS.name(), row -> new AwsReplacement(),
      ReplaceProvider.CLUSTER_API.name(), ClusterApiReplacement::new);

  private ReplaceProviders() {}

  /** The way of the provider of this name; the decoder accepts no other. */
  static Replacement of(String provider) {
    ReplaceProvider row = ReplaceProvider.named(provider)
        .orElseThrow(() -> new IllegalArgumentException("no replace provider " + provider));
    return OWN_WAYS.getOrDefault(provider, OwnerObjectReplacement::new).apply(row);
  }
}
