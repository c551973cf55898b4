package io.gpuremediator.playbook.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The shipped DRA playbooks against the GPU Operator's own manifest (tests/real/gpu-operator/v26.7.0-dra): they match the
 * nodes its DRA stack runs NVIDIA's DRA driver on, by the label its kubelet plugin is scheduled by; reset-class faults
 * there fence a GPU, node-class faults take the node path, and a device-plugin node takes the node path throughout.
 */
class ShippedDraPlaybooksTest {
  private static final PlaybookSet SHIPPED = PlaybookLoader.load(List.of(Path.of("../deploy/playbooks"))).set();

  /** The nodeSelector of the DRA driver's kubelet plugin DaemonSet, as v26.7.0 publishes it (its Go template dropped). */
  @SuppressWarnings("unchecked")
  private static Map<String, String> draNodeSelector() throws Exception {
    String text = Files.readString(Path.of("../tests/real/gpu-operator/v26.7.0-dra/dra-driver-0500_daemonset.yaml"))
        .replaceAll("(?m)^\\s*\\{\\{-?[^}]*}}\\s*$\\n?", "").replaceAll("\\{\\{-?[^}]*}}", "templated");
    Map<String, Object> ds = new Yaml().load(text);
    Map<String, Object> spec = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) ds.get("spec"))
        .get("template")).get("spec");
    return (Map<String, String>) spec.get("nodeSelector");
  }

  private static Optional<String> playbookFor(Map<String, String> alert, Map<String, String> node) {
    return SHIPPED.firstMatch(alert, node).map(Playbook::name);
  }

  private static Map<String, String> alert(String alertname, String action) {
    return Map.of("alertname", alertname, "recommended_action", action, "severity", "critical", "remediate", "true",
        "UUID", "GPU-2fa81118-5a5f-aa66-7660-471eed407181", "gpu", "3", "node", "gpu-node-0");
  }

  @Test
  void resetClassFaultsOnTheOperatorsDraNodesFenceAGpuAndNodeClassFaultsTakeTheNodePath() throws Exception {
    Map<String, String> dra = new HashMap<>(draNodeSelector());
    assertThat(dra).containsEntry("nvidia.com/gpu.deploy.dra-driver", "true");
    dra.put("nvidia.com/gpu.present", "true");
    Map<String, String> devicePlugin = Map.of("nvidia.com/gpu.present", "true", "nvidia.com/gpu.deploy.device-plugin", "true");

    assertThat(playbookFor(alert("GpuXidHardwareError", "reset_gpu"), dra)).contains("gpu-dra-xid-reset");
    assertThat(playbookFor(alert("GpuRecoveryActionRequired", "reset_gpu"), dra)).contains("gpu-dra-recovery-reset");
    assertThat(playbookFor(alert("GpuXidHardwareError", "reboot"), dra)).as("a GPU off the bus: the node path")
        .contains("gpu-xid-reboot");
    assertThat(playbookFor(alert("GpuRecoveryActionRequired", "reboot"), dra)).contains("gpu-recovery-reboot");
    assertThat(playbookFor(alert("GpuXidHardwareError", "reset_gpu"), devicePlugin)).contains("gpu-xid-reset");
    assertThat(playbookFor(alert("GpuRecoveryActionRequired", "reset_gpu"), devicePlugin)).contains("gpu-recovery-reset");
  }

  @Test
  void aDraNodeThatPublishesNoSuchDeviceFallsBackToTheNodePlaybookOfTheSameFault() {
    assertThat(SHIPPED.named("gpu-dra-xid-reset").orElseThrow().actions()).anySatisfy(a -> {
      assertThat(a.kind()).isEqualTo("fence_gpu");
      assertThat(a.escalatesTo()).contains("gpu-xid-reset");
    });
    assertThat(SHIPPED.named("gpu-dra-recovery-reset").orElseThrow().actions()).anySatisfy(a -> {
      assertThat(a.kind()).isEqualTo("fence_gpu");
      assertThat(a.escalatesTo()).contains("gpu-recovery-reset");
    });
  }
}
