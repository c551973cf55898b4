package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.safety.FleetState;
import io.gpuremediator.safety.FleetState.Sighting;
import io.gpuremediator.safety.FleetStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet state in a ConfigMap of the service's namespace (key {@value #KEY}, the storm's sightings gzipped beside it
 * in binaryData {@value #SIGHTINGS}), written with its resourceVersion; a write that finds it changed re-reads it and
 * writes again (the leader's state is authoritative). Fleet-level Events (the breaker opening) are recorded on that
 * ConfigMap.
 *
 * <p>Every write is sized first against the API server's 1 MiB of a ConfigMap's data: one that would not fit sheds the
 * sightings seen longest ago until it does (they only count toward a storm; the breaker, a pause and the incidents are
 * never shed), so a pause, a resume or a reset is never refused for the size of a storm.
 */
public final class ConfigMapFleetStore implements FleetStore {
  private static final Logger LOGGER = LoggerFactory.getLogger(ConfigMapFleetStore.class);
  static final String KEY = "fleet.json";
  static final String SIGHTINGS = "sightings.json.gz";
  /** What a write may take of the 1 MiB, leaving room for the API server's own counting. */
  static final int MAX_BYTES = 1024 * 1024 - 64 * 1024;
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
      Optional<byte[]> sightings = Optional.ofNullable(cm.getBinaryData()).map(b -> b.get(SIGHTINGS))
          .map(Base64.getDecoder()::decode);
      return FleetStateCodec.decode(cm.getData().get(KEY), sightings);
    } catch (IllegalArgumentException e) {
      throw new FleetStoreException(e.getMessage(), e);
    }
  }

  /** The stored form of the state, its oldest sightings shed until it fits {@value #MAX_BYTES} bytes. */
  static FleetStateCodec.Stored fitted(FleetState state) {
    FleetStateCodec.Stored stored = FleetStateCodec.encode(state);
    int kept = state.firing().size() + state.acknowledged().size();
    FleetState shed = state;
    while (stored.bytes() > MAX_BYTES && kept > 0) {
      kept /= 2;
      shed = newest(state, kept);
      stored = FleetStateCodec.encode(shed);
    }
    if (shed != state) {
      LOGGER.warn("the fleet state holds {} storm sightings, more than its ConfigMap takes: the {} seen last are kept",
          state.firing().size() + state.acknowledged().size(), kept);
    }
    return stored;
  }

  /** The state with only the {@code kept} sightings seen last, firing and acknowledged together. */
  private static FleetState newest(FleetState s, int kept) {
    record Seen(boolean firing, String node, Sighting sighting) {}
    List<Seen> all = new ArrayList<>();
    s.firing().forEach((node, sighting) -> all.add(new Seen(true, node, sighting)));
    s.acknowledged().forEach((node, sighting) -> all.add(new Seen(false, node, sighting)));
    all.sort(Comparator.comparing((Seen seen) -> seen.sighting().seenAt()).reversed());
    Map<String, Sighting> firing = new TreeMap<>();
    Map<String, Sighting> acknowledged = new TreeMap<>();
    for (Seen seen : all.subList(0, Math.min(kept, all.size()))) {
      (seen.firing() ? firing : acknowledged).put(seen.node(), seen.sighting());
    }
    return new FleetState(s.breaker(), s.pause(), s.starts(), s.playbookStarts(), firing, acknowledged, s.replacements(),
        s.incidents());
  }

  @Override
  public void save(FleetState state) throws FleetStoreException {
    FleetStateCodec.Stored stored = fitted(state);
    String json = stored.json();
    String sightings = Base64.getEncoder().encodeToString(stored.sightings());
    for (int attempt = 1; ; attempt++) {
      ConfigMap current = attempt == 1 && last != null ? last : read();
      try {
        if (current == null) {
          last = client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
              .withNamespace(namespace).addToLabels("app.kubernetes.io/part-of", NodeKeys.COMPONENT).endMetadata()
              .addToData(KEY, json).addToBinaryData(SIGHTINGS, sightings).build()).create();
        } else {
          last = client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder(current).addToData(KEY, json)
              .addToBinaryData(SIGHTINGS, sightings).build()).update();
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
