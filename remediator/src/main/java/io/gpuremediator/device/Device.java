package io.gpuremediator.device;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A device a node publishes in its driver's ResourceSlice.
 *
 * @param attributes its attributes as strings (a string, int, bool or version attribute's value), by name
 * @param taints the taints its driver put on it in the slice (never a DeviceTaintRule's)
 */
public record Device(DeviceRef ref, Map<String, String> attributes, List<DeviceTaint> taints) {
  /** Copies. */
  public Device {
    attributes = Map.copyOf(attributes);
    taints = List.copyOf(taints);
  }

  /** The GPU's UUID ({@code uuid}: dcgm-exporter's {@code UUID} label). */
  public Optional<String> uuid() {
    return Optional.ofNullable(attributes.get("uuid"));
  }

  /** Whether this device is the GPU the alert names: its {@code uuid}, or its {@code index} where the driver publishes one. */
  public boolean is(String gpu) {
    return gpu.equals(attributes.get("uuid")) || gpu.equals(attributes.get("index"));
  }
}
