package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.workload.NodeJob;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A node Job as it is sent, a sweep's with its PriorityClass and pod failure policy; and which pods hold accelerators. */
class JobManifestTest {
  private static NodeJob job(Optional<String> priorityClass) {
    return new NodeJob("gpu-remediator", "gpu-sweep-0123456789abcdef", "gpu-node-1", "sweep",
        "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", List.of("dcgmi", "diag", "-r", "2", "-j"), Map.of(),
        Duration.ofMinutes(30), Duration.ofHours(1), Map.of("gpu-remediator.io/sweep", "idle-diag"), List.of("nvidia.com/gpu"),
        false, false, List.of(), priorityClass);
  }

  @Test
  void aSweepsJobIsOfItsPriorityClassPinnedByNodeNameAndFailsOnlyOnTheDiagnosticsExit() {
    Job j = JobManifest.of(job(Optional.of("gpu-remediator-sweep")));
    assertThat(j.getSpec().getTemplate().getSpec().getPriorityClassName()).isEqualTo("gpu-remediator-sweep");
    assertThat(JobManifest.node(j)).hasValue("gpu-node-1");
    var rules = j.getSpec().getPodFailurePolicy().getRules();
    assertThat(rules).hasSize(2);
    assertThat(rules.get(0).getAction()).isEqualTo("Ignore");
    assertThat(rules.get(0).getOnPodConditions()).singleElement().satisfies(c -> {
      assertThat(c.getType()).isEqualTo("DisruptionTarget");
      assertThat(c.getStatus()).isEqualTo("True");
    });
    assertThat(rules.get(1).getAction()).isEqualTo("FailJob");
    assertThat(rules.get(1).getOnExitCodes().getOperator()).isEqualTo("NotIn");
    assertThat(rules.get(1).getOnExitCodes().getValues()).containsExactly(0, 128);
    assertThat(j.getSpec().getBackoffLimit()).isZero();
    assertThat(j.getSpec().getTemplate().getSpec().getRestartPolicy()).isEqualTo("Never");
  }

  @Test
  void aStepsJobHasNeitherPriorityClassNorPodFailurePolicy() {
    Job j = JobManifest.of(job(Optional.empty()));
    assertThat(j.getSpec().getTemplate().getSpec().getPriorityClassName()).isNull();
    assertThat(j.getSpec().getPodFailurePolicy()).isNull();
  }

  private static Pod pod(String resource, String amount) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").endMetadata().withNewSpec()
        .addNewContainer().withName("c").withImage("img").withNewResources()
        .withLimits(resource == null ? Map.of() : Map.of(resource, new Quantity(amount))).endResources().endContainer()
        .endSpec();
    return b.build();
  }

  @Test
  void aPodHoldsAcceleratorsWhenItRequestsADevicePluginsResourceOrClaimsDevices() {
    assertThat(JobManifest.accelerators(pod("nvidia.com/gpu", "8"))).isTrue();
    assertThat(JobManifest.accelerators(pod("nvidia.com/mig-1g.10gb", "1"))).isTrue();
    assertThat(JobManifest.accelerators(pod("aws.amazon.com/neuroncore", "2"))).isTrue();
    assertThat(JobManifest.accelerators(pod("amd.com/gpu", "1"))).isTrue();
    assertThat(JobManifest.accelerators(pod("nvidia.com/gpu", "0"))).isFalse();
    assertThat(JobManifest.accelerators(pod("cpu", "4"))).isFalse();
    assertThat(JobManifest.accelerators(pod(null, null))).isFalse();
    Pod claiming = new PodBuilder(pod(null, null)).editSpec().addNewResourceClaim().withName("gpu")
        .withResourceClaimTemplateName("one-gpu").endResourceClaim().endSpec().build();
    assertThat(JobManifest.accelerators(claiming)).isTrue();
  }
}
