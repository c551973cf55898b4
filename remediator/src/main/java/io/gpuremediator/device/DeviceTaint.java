package io.gpuremediator.device;

/** A taint on a device: a DeviceTaintRule's, or one its driver put in its ResourceSlice (NVIDIA's on a fatal XID). */
public record DeviceTaint(String key, String value, String effect) {
  @Override
  public String toString() {
    return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect;
  }
}
