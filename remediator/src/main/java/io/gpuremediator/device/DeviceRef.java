package io.gpuremediator.device;

import java.util.Objects;

/**
 * One device as DRA names it, and as a DeviceTaintRule's {@code spec.deviceSelector} and a claim's allocation result
 * name it: its driver, its pool (NVIDIA's driver: one pool per node, named after it) and its name in the pool.
 */
public record DeviceRef(String driver, String pool, String device) {
  /** Validates presence. */
  public DeviceRef {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
  }

  @Override
  public String toString() {
    return driver + "/" + pool + "/" + device;
  }
}
