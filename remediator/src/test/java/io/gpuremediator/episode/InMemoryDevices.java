package io.gpuremediator.episode;

import io.gpuremediator.device.Device;
import io.gpuremediator.device.DeviceRef;
import io.gpuremediator.device.Devices;
import io.gpuremediator.device.FenceRule;
import io.gpuremediator.testing.DraObjects;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * DRA as the randomized tests need it: the nodes named publish eight GPUs in {@code gpu.nvidia.com}'s slices (one pool
 * per node, devices {@code gpu-0}..., {@code uuid} attributes as {@link DraObjects#uuid}), DeviceTaintRules kept by
 * name, and no pod holding a GPU (the eviction controller has done its work by the next look).
 */
final class InMemoryDevices implements Devices {
  final Map<String, FenceRule> rules = new LinkedHashMap<>();
  /** Every create asked, by rule name, whether or not it found the rule there. */
  final Map<String, Integer> creates = new LinkedHashMap<>();
  private final Set<String> draNodes;

  InMemoryDevices(Set<String> draNodes) {
    this.draNodes = Set.copyOf(draNodes);
  }

  @Override
  public synchronized List<Device> onNode(String node, String driver) {
    List<Device> out = new ArrayList<>();
    if (draNodes.contains(node) && driver.equals("gpu.nvidia.com")) {
      for (int i = 0; i < 8; i++) {
        out.add(new Device(new DeviceRef(driver, node, "gpu-" + i), Map.of("type", "gpu", "uuid", DraObjects.uuid(node, i)),
            List.of()));
      }
    }
    return out;
  }

  @Override
  public synchronized void fence(FenceRule rule) {
    creates.merge(rule.name(), 1, Integer::sum);
    rules.putIfAbsent(rule.name(), rule);
  }

  @Override
  public synchronized Optional<FenceRule> rule(String name) {
    return Optional.ofNullable(rules.get(name));
  }

  @Override
  public synchronized List<String> rulesLabelled(String key, String value) {
    return rules.values().stream().filter(r -> value.equals(r.labels().get(key))).map(FenceRule::name).toList();
  }

  @Override
  public synchronized void unfence(String name) {
    rules.remove(name);
  }

  @Override
  public List<String> holders(String node, DeviceRef device) {
    return List.of();
  }
}
