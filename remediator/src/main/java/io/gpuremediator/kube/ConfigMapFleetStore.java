package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.safety.FleetState;
import io.gpuremediator.safety.FleetStore;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet state in a ConfigMap of the service's namespace (key {@value #KEY}), written with its
 * resourceVersion; a write that finds it changed re-reads it and writes again (the leader's state is
 * authoritative). Fleet-level Events
 * (the breaker opening) are recorded on that ConfigMap.
 */
public final class ConfigMapFleetStore implements FleetStore {
  private static final Logger LOGGER = LoggerFactory.getLogger(ConfigMapFleetStore.class);
  static final String KEY = "fleet.json";
  private static final int MAX_ATTEMPTS = 5;

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final String instance;
  private final Clock clock;
  /** The ConfigMap as last read or written: the next write starts from it (a 409 re-reads). */
  private volatile ConfigMap last;

  /** Creates the store for ConfigMap {@code namespace/name}. */
  public ConfigMapFleetStore(KubernetesClient client, String namespace, String name, String instance, Clock clock) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.instance = instance;
    this.clock = clock;
  }

  @Override
  public FleetState load() throws FleetStoreException {
    return decode(read());
  }

  private ConfigMap read() throws FleetStoreException {
    try {
      last = client.configMaps().inNamespace(namespace).withName(name).get();
      return last;
    } catch (KubernetesClientException e) {
      throw new FleetStoreException("cannot read ConfigMap " + namespace + "/" + name + ": " + e.getMessage(), e);
    }
  }

  private static FleetState decode(ConfigMap cm) throws FleetStoreException {
    if (cm == null || cm.getData() == null || !cm.getData().containsKey(KEY)) {
      return FleetState.EMPTY;
    }
    try {
      return FleetStateCodec.decode(cm.getData().get(KEY));
    } catch (IllegalArgumentException e) {
      throw new FleetStoreException(e.getMessage(), e);
    }
  }

  @Override
  public void save(FleetState state) throws FleetStoreException {
    String json = FleetStateCodec.encode(state);
    for (int attempt = 1; ; attempt++) {
      ConfigMap current = attempt == 1 && last != null ? last : read();
      try {
        if (current == null) {
          last = client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
              .withNamespace(namespace).addToLabels("app.kubernetes.io/part-of", NodeKeys.COMPONENT).endMetadata()
              .addToData(KEY, json).build()).create();
        } else {
          last = client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder(current).addToData(KEY, json).build())
              .update();
        }
        return;
      } catch (KubernetesClientException e) {
        last = null;
        if ((e.getCode() != 409 && e.getCode() != 404) || attempt == MAX_ATTEMPTS) {
          throw new FleetStoreException("cannot write ConfigMap " + namespace + "/" + name + ": " + e.getMessage(), e);
        }
      }
    }
  }

  @Override
  public void announce(String reason, String message) {
    try {
      client.v1().events().inNamespace(namespace).resource(KubeEvents.of(namespace, "ConfigMap", namespace, name, "Warning",
          reason, message, clock.instant(), instance)).create();
    } catch (KubernetesClientException e) {
      LOGGER.warn("event {} not recorded: {}", reason, e.getMessage());
    }
  }
}
