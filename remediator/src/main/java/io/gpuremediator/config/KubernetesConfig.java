package io.gpuremediator.config;

import io.gpuremediator.config.RemediatorConfig.Kubernetes;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.nio.file.Path;
import java.util.Optional;

/** Decodes {@code kubernetes}: how to reach the API server, and how much of it the service may use. */
final class KubernetesConfig {
  private KubernetesConfig() {}

  static Kubernetes decode(MapReader m, Path base, Problems problems) {
    return m.map("kubernetes", "kubernetes").map(k -> {
      Kubernetes d = Kubernetes.DEFAULTS;
      Optional<Path> kubeconfig = k.string("kubeconfig").map(base::resolve);
      long qps = k.count("qps").orElse((long) d.qps());
      if (qps < 1 || qps > 10_000) {
        problems.add(k.at("qps"), "\"qps\" in kubernetes must be between 1 and 10000 requests a second");
      }
      long burst = k.count("burst").orElse(Math.max(d.burst(), qps));
      long least = Math.max(1, qps);
      if (burst < least || burst > 100_000) {
        problems.add(k.at("burst"), "\"burst\" in kubernetes must be between " + least + " (at least \"qps\") and 100000");
      }
      long writes = k.count("writes_in_flight").orElse((long) d.writesInFlight());
      if (writes < 1 || writes > 256) {
        problems.add(k.at("writes_in_flight"), "\"writes_in_flight\" in kubernetes must be between 1 and 256");
      }
      k.finish();
      return new Kubernetes(kubeconfig, (int) Math.min(qps, Integer.MAX_VALUE), (int) Math.min(burst, Integer.MAX_VALUE),
          (int) Math.min(writes, Integer.MAX_VALUE));
    }).orElse(Kubernetes.DEFAULTS);
  }
}
