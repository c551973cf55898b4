package io.gpuremediator.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A claim key names what it claims, and reads back into its parts (a taint key may itself contain a slash). */
class ClaimKeyTest {
  @Test
  void taintAndLabelKeysReadBack() {
    assertThat(ClaimKey.taintOf(ClaimKey.taint("gpu-remediator.io/unhealthy", "NoSchedule")))
        .contains(new ClaimKey.TaintClaim("gpu-remediator.io/unhealthy", "NoSchedule"));
    assertThat(ClaimKey.labelOf(ClaimKey.label("gpu-remediator.io/rma"))).contains("gpu-remediator.io/rma");
    assertThat(ClaimKey.taintOf(ClaimKey.CORDON)).isEmpty();
    assertThat(ClaimKey.labelOf(ClaimKey.condition("GpuHealthy"))).isEmpty();
  }
}
