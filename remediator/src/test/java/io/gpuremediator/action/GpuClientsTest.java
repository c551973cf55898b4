package io.gpuremediator.action;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.workload.PodInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The GPU clients a reset pauses are the GPU Operator's DaemonSets as its manifests declare them (tests/real): each
 * named {@code nvidia-<name>} and placed by {@code nodeSelector: nvidia.com/gpu.deploy.<name>: "true"}.
 */
class GpuClientsTest {
  @ParameterizedTest
  @CsvSource({
      "0800_daemonset.yaml, dcgm-exporter",
      "v26.7.0-dcgm-0400_dcgm.yml, dcgm",
      "v26.7.0-dra/0700_daemonset.yaml, dcgm-exporter-dra",
      "v26.7.0-dra/dcgm-0500_daemonset.yaml, dcgm-dra"})
  void eachOperandIsTheDaemonSetItsDeployLabelPlaces(String manifest, String operand) throws IOException {
    String yaml = Files.readString(Path.of("../tests/real/gpu-operator").resolve(manifest));
    assertThat(yaml).contains("name: nvidia-" + operand + "\n", "nvidia.com/gpu.deploy." + operand + ": \"true\"");
  }

  @Test
  void onlyThePausedOperandsRunningPodsCount() {
    List<PodInfo> pods = List.of(pod("gpu-operator", "nvidia-dcgm-exporter-x7k2p", true, "Running"),
        pod("gpu-operator", "nvidia-dcgm-5fzq9", true, "Running"),
        pod("gpu-operator", "nvidia-dcgm-exporter-dra-9pl2m", true, "Succeeded"),
        pod("ml", "nvidia-dcgm-exporter-lookalike", false, "Running"),
        pod("gpu-operator", "nvidia-device-plugin-daemonset-4kq8d", true, "Running"));
    assertThat(GpuClients.stillRunning(pods, List.of("dcgm-exporter", "dcgm-exporter-dra")))
        .containsExactly("gpu-operator/nvidia-dcgm-exporter-x7k2p");
    assertThat(GpuClients.stillRunning(pods, List.of("dcgm"))).containsExactly("gpu-operator/nvidia-dcgm-5fzq9");
  }

  private static PodInfo pod(String ns, String name, boolean daemonSet, String phase) {
    return new PodInfo(ns, name, "uid-" + name, phase, daemonSet, false, false, Optional.empty());
  }
}
