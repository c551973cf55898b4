package io.gpuremediator.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {
  @Test
  void evaluatesEveryRequirement() {
    LabelSelector s = LabelSelector.parse("nvidia.com/gpu.present=true, pool!=cpu, zone, !draining").value();
    assertThat(s.matches(Map.of("nvidia.com/gpu.present", "true", "zone", "a"))).isTrue();
    assertThat(s.matches(Map.of("nvidia.com/gpu.present", "true", "zone", "a", "draining", ""))).isFalse();
    assertThat(s.matches(Map.of("nvidia.com/gpu.present", "true", "pool", "cpu", "zone", "a"))).isFalse();
    assertThat(s.matches(Map.of("nvidia.com/gpu.present", "false", "zone", "a"))).isFalse();
  }

  @Test
  void emptySelectsEverything() {
    assertThat(LabelSelector.parse("").value().matches(Map.of())).isTrue();
  }

  @Test
  void setBasedRequirementsHoldAsTheApiServerSaysAndRejectWhatItDoesNot() {
    LabelSelector in = LabelSelector.parse("node.kubernetes.io/instance-type in (trn1.32xlarge, inf2.xlarge), pool notin (cpu)")
        .value();
    assertThat(in.matches(Map.of("node.kubernetes.io/instance-type", "trn1.32xlarge"))).isTrue();
    assertThat(in.matches(Map.of("node.kubernetes.io/instance-type", "inf2.xlarge", "pool", "neuron"))).isTrue();
    assertThat(in.matches(Map.of("node.kubernetes.io/instance-type", "inf2.xlarge", "pool", "cpu"))).isFalse();
    assertThat(in.matches(Map.of("node.kubernetes.io/instance-type", "m5.large"))).isFalse();
    assertThat(in.matches(Map.of())).as("in needs the label; notin holds without it").isFalse();
    assertThat(LabelSelector.parse("zone in (a,b").error()).startsWith("\"zone in (a\" is not a label selector requirement");
    assertThat(LabelSelector.parse("zone in (a b)").error()).startsWith("\"zone in (a b)\" is not a label selector requirement");
  }

  @Test
  void oneSelectorIsSaidToTheApiServerAndAListOrNothingIsNot() {
    assertThat(LabelSelector.parse("nvidia.com/gpu.present==true, pool!=cpu, zone, !draining").value().apiSelector())
        .contains("nvidia.com/gpu.present=true,pool!=cpu,zone,!draining");
    assertThat(LabelSelector.parse("node.kubernetes.io/instance-type in (trn1.2xlarge, inf2.xlarge)").value().apiSelector())
        .contains("node.kubernetes.io/instance-type in (trn1.2xlarge,inf2.xlarge)");
    assertThat(LabelSelector.gpuNodes().apiSelector()).as("the API has no or").isEmpty();
    assertThat(LabelSelector.parse("").value().apiSelector()).as("every node").isEmpty();
  }
}
