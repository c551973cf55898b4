package io.gpuremediator.simapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The DRA objects as the emulated API server serves them, in the shapes Kubernetes and NVIDIA's DRA driver publish
 * (tests/real/dra): slices by field, taints validated, and the device taint eviction controller.
 */
class DynamicResourcesTest {
  private static final ResourceDefinitionContext SLICES = context("ResourceSlice", "resourceslices", false);
  private static final ResourceDefinitionContext RULES = context("DeviceTaintRule", "devicetaintrules", false);
  private static final ResourceDefinitionContext CLAIMS = context("ResourceClaim", "resourceclaims", true);
  private final EmulatedApiServer server = EmulatedApiServer.start();
  private final KubernetesClient client = server.client();

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void slicesAreListedByTheFieldsTheApiServerSupports() {
    slice("node-a", "gpu.nvidia.com", "");
    slice("node-b", "gpu.nvidia.com", "");
    slice("node-a", "compute-domain.nvidia.com", "");
    assertThat(client.genericKubernetesResources(SLICES).withField("spec.nodeName", "node-a")
        .withField("spec.driver", "gpu.nvidia.com").list().getItems()).extracting(s -> s.getMetadata().getName())
        .containsExactly("node-a-gpu.nvidia.com");
    assertThat(client.genericKubernetesResources(SLICES).withField("spec.pool.name", "node-b").list().getItems()).hasSize(1);
    assertThat(client.genericKubernetesResources(SLICES).withoutField("spec.driver", "gpu.nvidia.com").list().getItems())
        .extracting(s -> s.getMetadata().getName()).containsExactly("node-a-compute-domain.nvidia.com");
    assertThatThrownBy(() -> client.genericKubernetesResources(SLICES).withField("spec.devices", "gpu-0").list())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(400);
          assertThat(e.getStatus().getMessage()).isEqualTo("field label not supported: spec.devices");
        });
  }

  @Test
  void aRulesTaintIsValidatedAndStamped() {
    assertThatThrownBy(() -> rule("bad", "gpu-0", "PreferNoSchedule"))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getStatus().getMessage()).isEqualTo("DeviceTaintRule.resource.k8s.io \"bad\" is invalid:"
              + " spec.taint.effect: Unsupported value: \"PreferNoSchedule\": supported values: \"NoExecute\","
              + " \"NoSchedule\", \"None\"");
        });
    GenericKubernetesResource dryRun = rule("dry-run", "gpu-0", "None");
    assertThat(Serialization.asJson(dryRun)).contains("\"timeAdded\"");
  }

  @Test
  void noExecuteDeletesThePodsUsingTheTaintedDeviceOnly() {
    slice("node-a", "gpu.nvidia.com", "");
    pod("trainer-0");
    pod("trainer-1");
    claim("trainer-0", "gpu-0", "");
    claim("trainer-1", "gpu-1", "");
    rule("schedule-only", "gpu-1", "NoSchedule");
    assertThat(server.deviceTaintEvictions("ml", "trainer-1")).as("NoSchedule evicts nothing").isZero();
    rule("fence-gpu-0", "gpu-0", "NoExecute");
    assertThat(server.deviceTaintEvictions("ml", "trainer-0")).isEqualTo(1);
    assertThat(client.pods().inNamespace("ml").list().getItems()).extracting(p -> p.getMetadata().getName())
        .containsExactly("trainer-1");
    assertThat(Serialization.asJson(client.genericKubernetesResources(CLAIMS).inNamespace("ml").withName("trainer-0-gpu")
        .get())).as("the claim controller unreserves a gone pod's claim").contains("\"reservedFor\":[]");
    assertThat(Serialization.asJson(client.genericKubernetesResources(CLAIMS).inNamespace("ml").withName("trainer-1-gpu")
        .get())).contains("\"name\":\"trainer-1\"");
  }

  @Test
  void aClaimThatToleratesTheTaintKeepsItsPod() {
    slice("node-a", "gpu.nvidia.com", "");
    pod("trainer-0");
    claim("trainer-0", "gpu-0", ", tolerations: [{key: gpu-remediator.io/unhealthy, operator: Exists}]");
    rule("fence-gpu-0", "gpu-0", "NoExecute");
    assertThat(server.deviceTaintEvictions("ml", "trainer-0")).isZero();
  }

  @Test
  void aDriversOwnTaintInItsSliceEvictsOnlyUnderNoExecute() {
    pod("trainer-0");
    pod("trainer-1");
    claim("trainer-0", "gpu-0", "");
    claim("trainer-1", "gpu-1", "");
    // As NVIDIA's driver taints a GPU after a fatal XID (NoSchedule), and a NoExecute taint beside it.
    slice("node-a", "gpu.nvidia.com", "gpu.nvidia.com/xid");
    assertThat(server.deviceTaintEvictions("ml", "trainer-0")).isZero();
    assertThat(server.deviceTaintEvictions("ml", "trainer-1")).isEqualTo(1);
  }

  private void slice(String node, String driver, String taintKey) {
    String taints = taintKey.isEmpty() ? "" : "    taints: [{key: " + taintKey + ", value: \"79\", effect: NoSchedule}]\n";
    String evicting = taintKey.isEmpty() ? "" : "    taints: [{key: example.com/broken, effect: NoExecute}]\n";
    client.genericKubernetesResources(SLICES).resource(Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: %1$s-%2$s}
        spec:
          driver: %2$s
          nodeName: %1$s
          pool: {generation: 1, name: %1$s, resourceSliceCount: 1}
          devices:
          - name: gpu-0
            attributes:
              type: {string: gpu}
              uuid: {string: GPU-2fa81118-5a5f-aa66-7660-471eed407181}
        %3$s  - name: gpu-1
            attributes:
              type: {string: gpu}
              uuid: {string: GPU-13719f71-412c-d11e-b236-a262f530a4fc}
        %4$s""".formatted(node, driver, taints, evicting), GenericKubernetesResource.class)).create();
  }

  private GenericKubernetesResource rule(String name, String device, String effect) {
    return client.genericKubernetesResources(RULES).resource(Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: DeviceTaintRule
        metadata: {name: %s}
        spec:
          deviceSelector: {driver: gpu.nvidia.com, pool: node-a, device: %s}
          taint: {key: gpu-remediator.io/unhealthy, value: GpuXidHardwareError, effect: %s}
        """.formatted(name, device, effect), GenericKubernetesResource.class)).create();
  }

  private void pod(String name) {
    client.pods().inNamespace("ml").resource(new PodBuilder().withNewMetadata().withName(name).withNamespace("ml")
        .endMetadata().withNewSpec().withNodeName("node-a").endSpec().withNewStatus().withPhase("Running").endStatus()
        .build()).create();
  }

  private void claim(String pod, String device, String tolerations) {
    client.genericKubernetesResources(CLAIMS).inNamespace("ml").resource(Serialization.unmarshal("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %1$s-gpu, namespace: ml}
        spec:
          devices:
            requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]
        status:
          allocation:
            devices:
              results: [{request: gpu, driver: gpu.nvidia.com, pool: node-a, device: %2$s%3$s}]
          reservedFor: [{resource: pods, name: %1$s, uid: uid-%1$s}]
        """.formatted(pod, device, tolerations), GenericKubernetesResource.class)).create();
  }

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io").withVersion("v1").withKind(kind)
        .withPlural(plural).withNamespaced(namespaced).build();
  }
  @Test
  void theExportersClaimAsksWhatTheRecordedV26TemplateAsks() throws IOException {
    String template = Files.readString(Path.of(
        "../tests/real/gpu-operator/v26.7.0-dra/0400_resourceclaimtemplate.yaml"));
    StringBuilder v1 = new StringBuilder(); // the template's resource.k8s.io/v1 branch: its {{ if }} lines dropped
    boolean skipping = false;
    for (String line : template.split("\n")) {
      String t = line.strip();
      if (t.startsWith("{{- else }}")) {
        skipping = true;
      } else if (t.startsWith("{{- end }}")) {
        skipping = false;
      } else if (!t.startsWith("{{") && !skipping) {
        v1.append(line.replace("{{ .ResourceClaimAPIVersion }}", "resource.k8s.io/v1")
            .replace("{{ .Namespace }}", "gpu-operator")).append('\n');
      }
    }
    Map<String, Object> recorded = Serialization.unmarshal(v1.toString(), Map.class);
    Object request = ((List<?>) ((Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) recorded
        .get("spec")).get("spec")).get("devices")).get("requests")).get(0);
    assertThat(Serialization.unmarshal("request: " + DraShapes.EXPORTER_REQUEST, Map.class).get("request"))
        .isEqualTo(request);
    assertThat(Serialization.asJson(DraShapes.exporterClaim("node-a", 8))).contains("\"allocationMode\":\"All\"",
        "\"adminAccess\":true").doesNotContain("tolerations");
  }
}
