package io.gpuremediator.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Builds the Kubernetes client: from a kubeconfig file when given, in-cluster otherwise. */
final class KubeClients {
  private KubeClients() {}

  static KubernetesClient create(Optional<Path> kubeconfig) throws IOException {
    Config base = kubeconfig.isPresent()
        ? Config.fromKubeconfig(Files.readString(kubeconfig.get(), StandardCharsets.UTF_8))
        : Config.autoConfigure(null);
    // Our own code decides what to retry (conflicts re-read; 5xx answers 503 so Alertmanager retries):
    // the client's long exponential backoff would only hold the webhook open.
    Config config = new ConfigBuilder(base)
        .withRequestRetryBackoffLimit(1)
        .withRequestRetryBackoffInterval(100)
        .withConnectionTimeout(5_000)
        .withRequestTimeout(10_000)
        .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
