package io.gpuremediator.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A claim key names what it claims, and reads back into its parts (a taint key may itself contain a slash). */
class ClaimKeyTest {
  @Test
  void taintAndLabelKeysReadBack() {
    assertThat(ClaimKey.parse(ClaimKey.taint("gpu-remediator.io/unhealthy", "NoSchedule")))
        .isEqualTo(new ClaimKey.TaintClaim("gpu-remediator.io/unhealthy", "NoSchedule"));
    assertThat(ClaimKey.parse(ClaimKey.label("gpu-remediator.io/rma"))).isEqualTo(new ClaimKey.LabelClaim("gpu-remediator.io/rma"));
    assertThat(ClaimKey.parse(ClaimKey.CORDON)).isEqualTo(new ClaimKey.Cordon());
    assertThat(ClaimKey.parse(ClaimKey.condition("GpuHealthy"))).isEqualTo(new ClaimKey.OtherClaim("condition/GpuHealthy"));
  }

  @Test
  void onlyTheCordonAndNoScheduleOrNoExecuteTaintsTakeTheNodeOutOfService() {
    assertThat(ClaimKey.parse("cordon").takesNodeOutOfService()).isTrue();
    assertThat(ClaimKey.parse("taint/a/b/NoSchedule").takesNodeOutOfService()).isTrue();
    assertThat(ClaimKey.parse("taint/a/NoExecute").takesNodeOutOfService()).isTrue();
    assertThat(ClaimKey.parse("taint/a/PreferNoSchedule").takesNodeOutOfService()).isFalse();
    assertThat(ClaimKey.parse("label/NoSchedule").takesNodeOutOfService()).isFalse();
    assertThat(ClaimKey.parse("annotation/x").text()).isEqualTo("annotation/x");
  }
}
