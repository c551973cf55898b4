package io.gpuremediator.device;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A cluster-scoped DeviceTaintRule on one device: {@code spec.deviceSelector: {driver, pool, device}},
 * {@code spec.taint: {key, value, effect}}.
 *
 * @param labels its labels (managed by us, and the episode's hash)
 * @param evictionInProgress as read: the message of its {@code EvictionInProgress} condition while that is True (the
 *     eviction controller still deleting the pods it reaches: the device is not free yet); empty otherwise
 */
public record FenceRule(String name, DeviceRef device, DeviceTaint taint, Map<String, String> labels,
    Optional<String> evictionInProgress) {
  /** Validates presence; copies. */
  public FenceRule {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(taint, "taint");
    labels = Map.copyOf(labels);
    Objects.requireNonNull(evictionInProgress, "evictionInProgress");
  }

  /** A rule to write (its status is the API server's). */
  public FenceRule(String name, DeviceRef device, DeviceTaint taint, Map<String, String> labels) {
    this(name, device, taint, labels, Optional.empty());
  }
}
