package io.gpuremediator.device;

import java.util.Map;
import java.util.Objects;

/**
 * A cluster-scoped DeviceTaintRule on one device: {@code spec.deviceSelector: {driver, pool, device}},
 * {@code spec.taint: {key, value, effect}}.
 *
 * @param labels its labels (managed by us, and the episode's hash)
 */
public record FenceRule(String name, DeviceRef device, DeviceTaint taint, Map<String, String> labels) {
  /** Validates presence; copies. */
  public FenceRule {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(taint, "taint");
    labels = Map.copyOf(labels);
  }
}
